// `svc logs tail` end to end: `svc login`, then the tail as a child process while a key makes calls; it prints
// each new call once, with the filters of the list route, as text or JSON lines, and nothing from before it
// started.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import type { Requests } from '../../src/modules/requests/index.ts';
import { runCli, startCli, type Cli } from './cli-processes.ts';

let svc: TestService;
let m: TestMerchant;
let key: TestKey;
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-config-'));
const env = () => ({ XDG_CONFIG_HOME: configHome, HOME: configHome, SVC_API_URL: svc.url });
const tails: Cli[] = [];

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  m = await signupMerchant(svc.app);
  key = await createKey(svc.app, m);
  const login = await runCli(['login', '--email', m.email], env(), `${m.password}\n`);
  expect(login.status).toBe(0);
}, 180_000);
afterAll(async () => {
  for (const t of tails) t.child.kill('SIGKILL');
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

async function publicCall(method: 'GET' | 'POST', url: string, requestId: string) {
  const res = await fetch(`${svc.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key.secret_key}`, 'x-request-id': requestId },
  });
  await res.arrayBuffer();
  return res.status;
}

const flush = () => (svc.modules.find((x) => x.name === 'requests') as Requests).batch.flush();

async function started(args: string[]): Promise<Cli> {
  const cli = startCli(['logs', 'tail', ...args], env());
  tails.push(cli);
  await eventually(async () => cli.stderr().includes('Ready.'), { what: 'svc logs tail to be ready' });
  return cli;
}

it('prints each new call once, filtered, and none from before it started', async () => {
  expect(await publicCall('GET', '/api/public/v1/stores', 'req_tail_before')).toBe(200);
  await flush();
  const all = await started([]);
  const failing = await started(['--status', '4xx', '--method', 'post']);

  expect(await publicCall('GET', '/api/public/v1/stores', 'req_tail_ok')).toBe(200);
  expect(await publicCall('POST', '/api/public/v1/stores/store_nope/cart', 'req_tail_fail')).toBe(404);
  await flush();

  await failing.waitFor(
    /404 not_found\s+POST\s+\/api\/public\/v1\/stores\/store_nope\/cart\s+[\d.]+ ms\s+req_tail_fail\s+secret_key key_\w+/,
  );
  await all.waitFor(/req_tail_fail/);
  await all.waitFor(/200\s+GET\s+\/api\/public\/v1\/stores\s+[\d.]+ ms\s+req_tail_ok/);
  // A later call is printed by a later poll, which read the earlier ones again: still each printed once, and
  // never the call made before the tail started.
  expect(await publicCall('GET', '/api/public/v1/stores', 'req_tail_later')).toBe(200);
  await flush();
  await all.waitFor(/req_tail_later/);
  expect(all.stdout().match(/req_tail_ok/g)).toHaveLength(1);
  expect(all.stdout().match(/req_tail_fail/g)).toHaveLength(1);
  expect(all.stdout()).not.toContain('req_tail_before');
  expect(failing.stdout()).not.toContain('req_tail_ok');
  expect(all.stdout()).not.toContain(key.secret_key);
});

it('prints JSON lines with --format json, and refuses a bad filter with the service’s message', async () => {
  const json = await started(['--format', 'json', '--credential', key.id]);
  expect(await publicCall('GET', '/api/public/v1/stores', 'req_tail_json')).toBe(200);
  await flush();
  const line = (await json.waitFor(/^\{.*"req_tail_json".*\}$/m))[0];
  expect(JSON.parse(line)).toMatchObject({
    id: 'req_tail_json',
    status: 200,
    credential: { type: 'secret_key', id: key.id, last4: key.secret_key.slice(-4) },
  });

  const bad = await runCli(['logs', 'tail', '--status', 'teapot'], env());
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain('validation_failed');
});
