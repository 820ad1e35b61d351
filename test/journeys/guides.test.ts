// The guides are exercised, not just written, as a newcomer meets them: in a fresh clone of this checkout,
// with the machine's own PATH (its Node may be older than the project's; nothing of node_modules/.bin first)
// and npm's install scripts refused unless package.json approves them (npm's coming default, made strict):
// - `npm ci`, then both README commands: `npm start` serves, `npm test` runs (on one small test file);
// - every `sh` block of every guide runs, in order, in one bash per guide (-e -o pipefail), against that
//   service; `shell` blocks start the service (the test starts it with their variables) or are the
//   process-manager line of operations.md, which starts the service too, after `npm start` stopped;
//   `sh template` blocks name your infrastructure (hosts, keys) and are not run;
// - every `ts` and `html` block of the three guides that quote examples is a verbatim excerpt of an example
//   that CI runs (examples/oauth-app.ts in test/e2e/oauth-app-example.test.ts, examples/browser-countries.html
//   in test/e2e/browser-keys.test.ts).
// The clone, its `npm ci` and its `npm test` take most of the time: about 5 minutes on the shared 2-core
// machine, so the file runs in one project (pg) only; the service it starts is embedded either way.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES } from '../../src/modules/dashboard/guides.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/processes.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { GUIDES as DASHBOARD_GUIDES } from '../../web/src/lib/guides.ts';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const QUOTING = ['quickstart', 'api-keys', 'oauth-apps'];
const PASSWORD = 'correct horse battery';

function blocks(markdown: string): { lang: string; code: string }[] {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}
const guideBlocks = (name: string) => blocks(read(GUIDES.find((g) => g.name === name)!.file));

/** What a shell on this machine has: its PATH without any node_modules/.bin, and none of npm's variables. */
function machineEnv(home: string): Record<string, string> {
  const path = process.env
    .PATH!.split(':')
    .filter((p) => !p.includes('node_modules'))
    .join(':');
  return {
    PATH: path,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    LANG: 'C.UTF-8',
    // The machine's npm cache, so that `npm ci` reads what the first install fetched.
    npm_config_cache: process.env.npm_config_cache || join(homedir(), '.npm'),
  };
}

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** A command to its end, in its own process group (killed whole afterwards: background jobs too). */
async function sh(
  script: string,
  cwd: string,
  env: Record<string, string>,
  input?: string,
  timeoutMs = 240_000,
): Promise<Run> {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd,
    env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // A script that never reads its input may be gone before the input is written: nothing to report.
  child.stdin.on('error', () => {});
  child.stdin.end(input ?? '');
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  };
  // A script that hangs is stopped, and its output says where.
  const timer = setTimeout(killGroup, timeoutMs);
  // Its end is bash's exit: what it left running in the background (svc listen, a receiver) still holds
  // the output pipes, so they close only once the group is killed.
  const closed = new Promise((resolve) => child.on('close', resolve));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  killGroup();
  await closed;
  return { code, out, err };
}

/** A service started in the clone, until `stop`; its output kept. */
interface Started {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

async function start(command: string, cwd: string, env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  // `env` runs the command as written, variables first, as this process's own child (so a SIGTERM reaches it).
  const child = spawn('bash', ['-c', `exec env ${command}`], {
    cwd,
    env: { ...env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  // The first start builds the dashboard and creates the embedded database: up to a few minutes when busy.
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`\`${command}\` exited ${child.exitCode}:\n${output}`);
      return fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    { timeoutMs: 240_000, intervalMs: 250, what: () => `\`${command}\` to be ready:\n${output}` },
  );
  return {
    url,
    child,
    output: () => output,
    stop: async () => {
      process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}

// Once per run: this file runs in the pg project only (vitest.config.ts), and the clone's service is embedded.
describe('from a fresh clone, with the machine’s own PATH', () => {
  const internalToken = randomBytes(24).toString('hex');
  let home = '';
  let clone = '';
  let env: Record<string, string> = {};
  let service: Started | undefined;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'svc-guides-'));
    clone = join(home, 'svc');
    env = machineEnv(home);
    const cloned = spawnSync('git', ['clone', '--quiet', ROOT, clone], { encoding: 'utf8' });
    expect(cloned.status, cloned.stderr).toBe(0);
    // What this checkout changed and did not commit yet goes along: the clone is of the working tree.
    const changed = spawnSync('git', ['ls-files', '-z', '--modified', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).stdout;
    for (const file of changed.split('\0').filter(Boolean)) {
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      copyFileSync(join(ROOT, file), join(clone, file));
    }
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 300_000); // the clone's node_modules: its removal took over two minutes on a loaded two-core host

  it('npm ci installs the pinned Node with install scripts refused unless approved', async () => {
    const node = await sh('node --version', clone, env);
    // The runtime a user's shell has here: on this machine Node 20, which cannot run the sources.
    expect(node.out).toMatch(/^v\d+\./);
    const ci = await sh('npm ci --no-audit --no-fund --prefer-offline', clone, {
      ...env,
      npm_config_strict_allow_scripts: 'true',
    });
    expect(ci.code, `${ci.out}\n${ci.err}`).toBe(0);
    expect(ci.err).not.toContain('not yet covered by allowScripts');
    const pinned = await sh('node_modules/.bin/node --version', clone, env);
    expect(pinned.out).toMatch(/^v24\./);
  }, 600_000);

  it("the quickstart's start command serves, and its first start's demo sign-in is shown again by svc demo", async () => {
    const starts = GUIDES.flatMap((g) => guideBlocks(g.name).filter((b) => b.lang === 'shell'));
    const quickstart = guideBlocks('quickstart')
      .find((b) => b.lang === 'shell')!
      .code.trim()
      .split('\n');
    expect(quickstart[0]).toBe('npm ci');
    expect(quickstart[1]).toMatch(/^(\S+=\S+ )*npm start$/);
    // The variables of every guide's start, and the internal token the platform-services guide asks for.
    const vars = Object.fromEntries(
      starts.flatMap((b) =>
        [...b.code.matchAll(/^((?:\S+=\S+ )*)npm start$/gm)].flatMap((m) =>
          m[1]!
            .trim()
            .split(' ')
            .filter(Boolean)
            .map((v) => v.split('=', 2) as [string, string]),
        ),
      ),
    );
    expect(vars).toMatchObject({ SVC_WEBHOOK_ALLOW_PRIVATE: '1', SVC_INTERNAL_TOKEN: expect.any(String) });
    service = await start('npm start', clone, { ...env, ...vars, SVC_INTERNAL_TOKEN: internalToken });
    expect(service.output()).toMatch(
      /Demo merchant created\. Sign in at http:\/\/127\.0\.0\.1:\d+\/dashboard/,
    );
    const printed = /password: (\S+)/.exec(service.output())![1]!;
    const demo = await sh(`PORT=${new URL(service.url).port} npx svc demo`, clone, env);
    expect(demo.code, demo.err).toBe(0);
    expect(demo.out).toContain(`password: ${printed}`);
    expect(demo.out).toContain(`${service.url}/dashboard`);
  }, 300_000);

  it('every sh block of every guide runs against it, in order', async () => {
    expect(service, 'the service of the previous test').toBeDefined();
    const svc = service!.url;
    const signup = async (name: string) => {
      const email = `guides-${name}-${randomBytes(4).toString('hex')}@example.com`;
      const res = await fetch(`${svc}/api/v1/merchant/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ merchant_name: name, email, password: PASSWORD }),
      });
      const { data } = (await res.json()) as { data: { token: string; merchant: { id: string } } };
      const me = (await (
        await fetch(`${svc}/api/v1/merchant/me`, { headers: { authorization: `Bearer ${data.token}` } })
      ).json()) as {
        data: { stores: { id: string }[] };
      };
      return { email, session: data.token, merchantId: data.merchant.id, storeId: me.data.stores[0]!.id };
    };
    const m = await signup('Guides');
    const key = (await (
      await fetch(`${svc}/api/v1/merchant/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.session}`, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { data: { secret_key: string } };

    const runs: Record<string, Run> = {};
    for (const guide of GUIDES) {
      const script = guideBlocks(guide.name)
        .filter((b) => b.lang === 'sh')
        .map((b) => b.code)
        .join('\n');
      runs[guide.name] = await sh(
        script,
        clone,
        {
          ...env,
          SVC: svc,
          SESSION: m.session,
          KEY: key.data.secret_key,
          SVC_INTERNAL_TOKEN: internalToken,
          MERCHANT_ID: m.merchantId,
          STORE_ID: m.storeId,
          EMAIL:
            guide.name === 'quickstart' ? `quick-${randomBytes(4).toString('hex')}@example.com` : m.email,
          EVENTS_FILE: join(home, `${guide.name}.events.jsonl`),
          RECEIVER_PORT: String(await freePort()),
          APP_PORT: String(await freePort()),
          RESOURCE_PORT: String(await freePort()),
        },
        // svc login (webhooks.md) asks for the email and password: a script answers on stdin.
        `${m.email}\n${PASSWORD}\n`,
      );
      const run = runs[guide.name]!;
      expect(run.code, `${guide.name}:\n${run.out}\n${run.err}`).toBe(0);
    }

    const quick = runs.quickstart!;
    expect(quick.out).toContain('svc_mst_');
    expect(quick.out).toMatch(/^store_\S+$/m);
    expect(quick.out).toMatch(/^active$/m);
    expect(quick.out).toMatch(/^249$/m);
    expect(quick.out).toContain('order.created evt_');
    expect(quick.out).toMatch(/^302 .*\/api\/public\/v1\/oauth\/authorize\?.*code_challenge=/m);

    const keys = runs['api-keys']!;
    expect(keys.out).toContain('insufficient_scope');
    expect(keys.out).toContain('credential_not_browser_safe');
    expect(keys.out).toMatch(/access-control-allow-origin: \*/i);

    const apps = runs['oauth-apps']!;
    expect(apps.out).toContain('"response_types_supported"');
    expect(apps.out).toMatch(/^302 /m);
    // chapters 13-15: an installation seen and left with an app token, private_key_jwt, DPoP
    expect(apps.out).toMatch(/^\{"grant_id":"grant_\w+","store_id":"store_\w+","mode":"test"/m);
    expect(apps.out).toMatch(/^uninstalled: 204$/m);
    expect(apps.out).toMatch(/^\{"token_endpoint_auth_method":"private_key_jwt","keys":\[\{"kty":"OKP"/m);
    expect(apps.out).toMatch(/^with the secret: 401$/m);
    expect(apps.out).toMatch(/"status": 200,/);
    expect(apps.out).toMatch(/^client_secret_basic$/m);
    expect(apps.out).toMatch(/"token_type": "dpop"/);
    expect(apps.out).toMatch(/"stores_status": 200/);

    // The local loop: an order and its payment from the merchant's own store, through svc listen.
    const hooks = runs.webhooks!;
    expect(hooks.out).toMatch(/^Ready\. Forwarding test events to http:\/\/127\.0\.0\.1:\d+\/webhooks/m);
    const received = [...hooks.out.matchAll(/^(order\.\w+) evt_\S+ \(test\) (\{.*\})$/gm)].map((r) => ({
      type: r[1]!,
      data: JSON.parse(r[2]!) as { id: string; store_id: string; payment?: { method: string } },
    }));
    expect(received.map((r) => r.type)).toEqual(['order.created', 'order.paid']);
    expect(received.every((r) => r.data.store_id === m.storeId)).toBe(true);
    expect(received[1]!.data).toMatchObject({
      id: received[0]!.data.id,
      payment: { method: 'bank_transfer' },
    });
    expect(hooks.out).toMatch(/order\.paid {2}evt_\S+ {2}-> 204/);

    const platform = runs['platform-services']!;
    expect(platform.out).toContain('"token_type":"secret_key"');
    expect(platform.out).toContain(`"store_id":"${m.storeId}"`);
    expect(platform.out).toContain('"data":{"items":[]');

    const ops = runs.operations!;
    expect(ops.out).toMatch(/^\{"data":\{"id":"evt_replayed_1042","deliveries":\d+\}\}$/m);
    expect(ops.out).toMatch(/^\{"data":\{"id":"evt_replayed_1042","deliveries":0,"duplicate":true\}\}$/m);
  }, 600_000);

  it("operations.md's process-manager line starts the service with the machine's PATH", async () => {
    await service?.stop();
    service = undefined;
    const lines = guideBlocks('operations')
      .filter((b) => b.lang === 'shell')
      .map((b) => b.code.trim());
    expect(lines).toHaveLength(1);
    // npm start's own command line, on the pinned Node: the two never drift apart.
    const { scripts } = JSON.parse(read('package.json')) as { scripts: { start: string } };
    expect(lines[0]).toBe(scripts.start.replace(' node ', ' node_modules/.bin/node '));
    service = await start(lines[0]!, clone, env);
    expect((await fetch(`${service.url}/dashboard`)).status).toBe(200);
    expect(await service.stop()).toBe(0);
    service = undefined;
    // The same line on the machine's own `node` says what to do instead of failing on an import.
    const old = await sh(lines[0]!.replace('node_modules/.bin/node', 'node'), clone, env);
    if (!/^v2[4-9]\./.test((await sh('node --version', clone, env)).out)) {
      expect(old.code).toBe(1);
      expect(old.err).toContain("svc runs on the project's pinned Node 24, node_modules/.bin/node");
    }
  }, 300_000);

  it("the README's test command runs in the clone", async () => {
    const readme = blocks(read('README.md')).find((b) => b.lang === 'sh')!.code;
    expect(readme).toMatch(/^npm test\s/m);
    // Its two halves (scripts/test.ts runs them side by side), as npm runs them in a clone: `npm run check`'s
    // steps are the ones CI runs in this checkout (minutes of type checking and lint again, for nothing new);
    // Vitest, through npm's script PATH (the pinned Node), on one small file: the point is that it runs from a
    // clone, not the suite. Vitest colours its summary even into a pipe, unless told not to.
    const script = (JSON.parse(read('package.json')) as { scripts: { test: string } }).scripts.test;
    expect(script).toBe('node scripts/test.ts');
    const halves = read('scripts/test.ts');
    expect(halves).toContain("'npm', 'run', '--silent', 'check'");
    expect(halves).toContain("run('vitest', ['run', ...process.argv.slice(2)]");
    const test = await sh(
      'npm exec -- vitest run --project pg test/lib/loop.test.ts',
      clone,
      { ...env, NO_COLOR: '1' },
      '',
      580_000,
    );
    expect(test.code, `${test.out}\n${test.err}`).toBe(0);
    expect(test.out).toMatch(/Test Files\s+1 passed/);
  }, 600_000);
});

describe('code excerpts are the examples CI runs', () => {
  // Line by line, indentation aside: the formatter re-indents an excerpt that stands on its own.
  const lines = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n');

  it.each(QUOTING)('%s quotes its examples verbatim', (name) => {
    const examples = lines(read('examples/oauth-app.ts') + '\n' + read('examples/browser-countries.html'));
    const excerpts = guideBlocks(name).filter((b) => ['ts', 'html'].includes(b.lang));
    for (const { code } of excerpts) expect(examples, code).toContain(lines(code));
  });

  it.each(GUIDES.map((g) => g.name))('%s runs nothing outside sh blocks but starting the service', (name) => {
    for (const b of guideBlocks(name).filter((x) => x.lang === 'shell')) {
      for (const line of b.code.trim().split('\n'))
        expect(line).toMatch(
          /^((\S+=\S+ )*npm (ci|start)|(MALLOC_\w+=\d+ )+node_modules\/\.bin\/node .* bin\/start\.js)$/,
        );
    }
    // Every command a reader runs goes through the project's Node: never a bare `node`.
    for (const b of guideBlocks(name).filter((x) => x.lang.startsWith('sh')))
      expect(b.code, name).not.toMatch(/(^|[\s;&|(])node\s/m);
  });
});

describe('the guides are linked and served', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { SVC_PUBLIC_URL: 'https://svc.example.com' } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('from the README and the dashboard, each guide of the service', () => {
    const readme = read('README.md');
    expect(DASHBOARD_GUIDES.map((g) => g.name)).toEqual(GUIDES.map((g) => g.name));
    for (const guide of GUIDES) expect(readme, guide.file).toContain(guide.file);
    expect(read('web/src/pages/account-ids.tsx')).toContain('GUIDES.map');
  });

  it('as pages with the service address, and as the Markdown they are written in', async () => {
    for (const guide of GUIDES) {
      const markdown = await svc.app.inject({ url: `/guides/${guide.name}.md` });
      expect(markdown.statusCode).toBe(200);
      expect(markdown.headers['content-type']).toMatch(/^text\/markdown/);
      expect(markdown.body).toBe(read(guide.file));
      // A browser following a link to the Markdown lands on the page.
      const browser = await svc.app.inject({
        url: `/guides/${guide.name}.md`,
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(browser.statusCode).toBe(303);
      expect(browser.headers.location).toBe(`/guides/${guide.name}`);

      const page = await svc.app.inject({ url: `/guides/${guide.name}` });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toMatch(/<h1 id="[^"]+">/);
      expect(page.body).not.toMatch(/<script|<[^>]+\s(style|on[a-z]+)=/i);
      expect(page.body).not.toContain('http://127.0.0.1:4000');
      expect(page.body).toContain(`<a href="/guides/${guide.name}" aria-current="page">`);
    }
    const quickstart = (await svc.app.inject({ url: '/guides/quickstart' })).body;
    expect(quickstart).toContain('https://svc.example.com/dashboard');
    expect(quickstart).toContain('href="/guides/api-keys"');
    expect(quickstart).toContain('Sign in</a> to see your own ids');
    for (const url of ['/guides/..%2Fdecisions.md', '/guides/decisions', '/guides/README.md']) {
      expect((await svc.app.inject({ url })).statusCode, url).toBe(404);
    }
  });
});
