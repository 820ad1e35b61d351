// examples/resource-server.ts, run as docs/guides/platform-services.md documents it against a listening
// service: it authenticates its GET /orders through introspection with the internal token, with a key,
// with an access token, and refuses the access token once it is revoked. The guide's code is the example's.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { freePort } from '../support/processes.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import { basic, createApp, exchange, getCode, type TestApp } from './helpers.ts';
import { eventually } from '../support/eventually.ts';

const INTERNAL = 'resource-server-example-token';
const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

let svc: TestService;
let child: ChildProcess | undefined;
let orders: string;
let out = '';
let shop: TestMerchant;
let key: TestKey;
let app: TestApp;

beforeAll(async () => {
  svc = await startTestService({ listen: true, env: { SVC_INTERNAL_TOKEN: INTERNAL } });
  const port = await freePort();
  orders = `http://127.0.0.1:${port}/orders`;
  child = spawn(process.execPath, ['examples/resource-server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, SVC_URL: svc.url, SVC_INTERNAL_TOKEN: INTERNAL, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  shop = await signupMerchant(svc.app, 'Corner Shop');
  const dev = await signupMerchant(svc.app, 'Dev Co');
  key = await createKey(svc.app, shop, { scopes: ['public:write'] });
  app = await createApp(svc.app, dev);
  await eventually(
    async () => {
      if (child!.exitCode !== null) throw new Error(`the example exited: ${out}`);
      return out.includes('listening');
    },
    { timeoutMs: 20_000, what: () => `the example to listen; it printed: ${out}` },
  );
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await svc?.close();
});

async function get(token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(orders, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

it('serves GET /orders to a key, for the merchant and store the key names', async () => {
  expect((await get(key.publishable_key)).status).toBe(200);
  expect(out).toContain(`merchant=${shop.merchantId} store=${shop.storeId} mode=test via=publishable_key`);
  // The secret key has public:write only: a GET needs public:read, as in svc's own API.
  expect(await get(key.secret_key)).toMatchObject({
    status: 403,
    body: { error: { code: 'insufficient_scope' } },
  });
  expect(await get(key.publishable_key, { 'x-svc-mode': 'live' })).toMatchObject({ status: 400 });
  expect(await get()).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
});

it('serves an access token, and refuses it once revoked', async () => {
  const { code, verifier } = await getCode(svc.app, app, shop);
  const tokens = await exchange(svc.app, app, code, verifier);
  expect((await get(tokens.access_token)).status).toBe(200);
  expect(out).toContain(`merchant=${shop.merchantId} store=${shop.storeId} mode=test via=access_token`);
  expect(await get(tokens.access_token, { origin: 'https://shop.example' })).toMatchObject({
    status: 403,
    body: { error: { code: 'credential_not_browser_safe' } },
  });

  const revoked = await svc.app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/revoke',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(app) },
    payload: new URLSearchParams({ token: tokens.access_token }).toString(),
  });
  expect(revoked.statusCode).toBe(200);
  expect(await get(tokens.access_token)).toMatchObject({
    status: 401,
    body: { error: { code: 'invalid_credential' } },
  });
  expect(await get(`${tokens.access_token.slice(0, -1)}x`)).toMatchObject({ status: 401 });
});

it('is what the guide quotes, and the guide is served and listed', async () => {
  const lines = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n');
  const guide = read('docs/guides/platform-services.md');
  const excerpts = [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(excerpts.length).toBeGreaterThan(0);
  for (const code of excerpts) expect(lines(read('examples/resource-server.ts'))).toContain(lines(code));
  expect(read('README.md')).toContain('docs/guides/platform-services.md');
  const served = await fetch(`${svc.url}/guides/platform-services.md`);
  expect(served.status).toBe(200);
  expect(await served.text()).toBe(guide);
});

it("runs the guide's first sh block: a key introspected with the internal token", async () => {
  // The whole guide, the example started as it says included, runs in test/journeys/guides.test.ts.
  const guide = read('docs/guides/platform-services.md');
  const script = [...guide.matchAll(/^```sh\n([\s\S]*?)^```$/gm)][0]![1]!;
  const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', script], {
    env: { PATH: process.env.PATH, SVC: svc.url, SVC_INTERNAL_TOKEN: INTERNAL, KEY: key.secret_key },
  });
  expect(JSON.parse(stdout)).toMatchObject({ active: true, token_type: 'secret_key', key_id: key.id });
});
