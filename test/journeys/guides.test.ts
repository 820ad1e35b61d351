// The guides of docs/guides/ are exercised, not just written: every `sh` block runs, in order, in one bash
// (-e -o pipefail) against a listening service; `shell` blocks (starting the service, which the test does
// itself) are the only ones not run; every `ts` and `html` block is a verbatim excerpt of an example that
// CI runs (examples/oauth-app.ts in test/e2e/oauth-app-example.test.ts, examples/browser-countries.html in
// test/e2e/browser-keys.test.ts). The README, the OpenAPI description and the dashboard link to them.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { freePort } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '../..');
const GUIDES = ['quickstart.md', 'api-keys.md', 'oauth-apps.md', 'audit.md'];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function blocks(markdown: string): { lang: string; code: string }[] {
  return [...markdown.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

let svc: TestService;
let m: TestMerchant;
const dir = mkdtempSync(join(tmpdir(), 'svc-guides-'));
beforeAll(async () => {
  svc = await startTestService({ listen: true, env: { SVC_WEBHOOK_ALLOW_PRIVATE: '1' } });
  m = await signupMerchant(svc.app);
});
afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the guide's sh blocks as one script; background jobs it starts die with its process group. */
async function runGuide(name: string, env: Record<string, string>) {
  const script = blocks(read(`docs/guides/${name}`))
    .filter((b) => b.lang === 'sh')
    .map((b) => b.code)
    .join('\n');
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd: ROOT,
    detached: true,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: dir,
      SVC: svc.url,
      EVENTS_FILE: join(dir, `${name}.events.jsonl`),
      RECEIVER_PORT: String(await freePort()),
      APP_PORT: String(await freePort()),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // the group is already gone
  }
  return { code, out, err };
}

describe('every sh block runs against a started service', () => {
  it('quickstart.md: a first call, a first webhook delivery, a first app', async () => {
    const run = await runGuide('quickstart.md', { EMAIL: `quick-${Date.now()}@example.com` });
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(run.out).toContain('svc_mst_');
    expect(run.out).toMatch(/^active$/m);
    expect(run.out).toMatch(/^249$/m);
    expect(run.out).toContain('order.created evt_');
    expect(run.out).toMatch(/^302 .*\/api\/public\/v1\/oauth\/authorize\?.*code_challenge=/m);
  });

  it('api-keys.md: keys, scopes, rotation, CORS and the browser rule', async () => {
    const run = await runGuide('api-keys.md', { SESSION: m.token });
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(run.out).toContain('insufficient_scope');
    expect(run.out).toContain('credential_not_browser_safe');
    expect(run.out).toMatch(/access-control-allow-origin: \*/i);
  });

  it('audit.md: an export with its checkpoint, verified offline', async () => {
    const run = await runGuide('audit.md', { SESSION: m.token });
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(run.out).toMatch(/^\d+ entries verified, sequence 1 to \d+$/m);
    expect(run.out).toMatch(/^Checkpoint: sequence \d+ of mer_\w+ \(test\), .*: matches line 2\.$/m);
  });

  it('oauth-apps.md: registering the app and starting the example', async () => {
    const run = await runGuide('oauth-apps.md', { SESSION: m.token });
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(run.out).toContain('"response_types_supported"');
    expect(run.out).toMatch(/^302 /m);
  });
});

describe('code excerpts are the examples CI runs', () => {
  // Line by line, indentation aside: the formatter re-indents an excerpt that stands on its own.
  const lines = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n');

  it.each(GUIDES)('%s quotes its examples verbatim', (name) => {
    const examples = lines(read('examples/oauth-app.ts') + '\n' + read('examples/browser-countries.html'));
    const excerpts = blocks(read(`docs/guides/${name}`)).filter((b) => ['ts', 'html'].includes(b.lang));
    for (const { code } of excerpts) expect(examples, code).toContain(lines(code));
  });

  it.each(GUIDES)('%s runs nothing outside sh blocks but starting the service', (name) => {
    for (const b of blocks(read(`docs/guides/${name}`)).filter((x) => x.lang === 'shell')) {
      for (const line of b.code.trim().split('\n')) expect(line).toMatch(/^(\S+=\S+ )*npm (ci|start)$/);
    }
  });
});

describe('the guides are linked', () => {
  it('from the README, the OpenAPI description and the dashboard, and served at /guides/', async () => {
    const readme = read('README.md');
    const tabs =
      read('web/src/pages/account-ids.tsx') +
      read('web/src/pages/apps/app-install-card.tsx') +
      read('web/src/pages/logs/logs-page.tsx');
    for (const name of GUIDES) {
      expect(readme).toContain(`docs/guides/${name}`);
      expect(tabs).toContain(`/guides/${name}`);
      const served = await fetch(`${svc.url}/guides/${name}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(await served.text()).toBe(read(`docs/guides/${name}`));
    }
    expect((await fetch(`${svc.url}/guides/..%2Fdecisions.md`)).status).toBe(404);
  });
});
