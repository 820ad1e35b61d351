// examples/oauth-app.ts in its two other modes, run as docs/guides/oauth-apps.md says (chapters 13 to 15)
// against a started service and installed through Chromium's sign-in and consent:
// - `--private-key-jwt`: `--print-jwks` makes the key file (the private half readable by its owner only) and
//   prints the public half, which is registered by PATCH; the example then runs without the client secret and
//   authenticates every token request with an assertion (each jti recorded under its client id);
// - `--dpop`: every token of the installation and the app token are bound to the example's key (the tokens'
//   jkt, token_type dpop) and every call carries a proof (each proof's jti recorded under that key).
// Both list the app's installations with an app token, and the first uninstalls itself from the store.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { freePort } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';
import { launchBrowser, type Launched } from './support/browser.ts';

let svc: TestService;
let browser: Launched;
let developer: TestMerchant;
let shop: TestMerchant;
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-oauth-app-'));

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  developer = await signupMerchant(svc.app, 'Sync Labs');
  shop = await signupMerchant(svc.app, 'Corner Shop');
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await browser?.close();
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface App {
  id: string;
  client_id: string;
  client_secret: string;
}

async function createApp(base: string): Promise<App> {
  const created = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/developer/apps',
    headers: developer.auth,
    payload: {
      name: 'Inventory Sync',
      redirect_uris: [`${base}/callback`],
      allowed_scopes: ['public:read', 'public:write'],
    },
  });
  expect(created.statusCode).toBe(201);
  return created.json().data as App;
}

/** The example, as the guide starts it: its variables, then `node_modules/.bin/node examples/oauth-app.ts`. */
async function startExample(args: string[], env: Record<string, string>): Promise<void> {
  const example = spawn(process.execPath, ['examples/oauth-app.ts', ...args], {
    env: { PATH: process.env.PATH, SVC_URL: svc.url, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(example);
  let out = '';
  example.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await eventually(
    async () => {
      if (example.exitCode !== null) throw new Error(`the example exited: ${out}`);
      return out.includes('listening');
    },
    { timeoutMs: 20_000, what: () => `the example to start: ${out}` },
  );
}

const result = async (page: Page) =>
  JSON.parse((await page.textContent('#result')) ?? 'null') as Record<string, unknown>;

/** The merchant installs the app through the browser: sign-in, consent, then the example's page. */
async function install(page: Page, base: string) {
  await page.goto(base);
  await page.getByRole('link', { name: 'Install on your store' }).click();
  await page.getByLabel('Email').fill(shop.email);
  await page.getByLabel('Password').fill(shop.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Installed' }).waitFor();
  return result(page);
}

async function jtis(issuer: string): Promise<number> {
  const rows = await svc.ctx.db
    .selectFrom('oauth_jtis')
    .select('jti')
    .where('issuer', 'like', issuer)
    .execute();
  return rows.length;
}

it('--private-key-jwt: registers the printed key, then installs, refreshes and uninstalls without the secret', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await createApp(base);
  const keyFile = join(dir, 'oauth-app-key.json');
  const printed = spawnSync(process.execPath, ['examples/oauth-app.ts', '--print-jwks'], {
    env: { PATH: process.env.PATH, PRIVATE_KEY_FILE: keyFile },
    encoding: 'utf8',
  });
  expect(printed.status, printed.stderr).toBe(0);
  const jwks = JSON.parse(printed.stdout) as { keys: Record<string, string>[] };
  expect(jwks.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: expect.any(String) }]);
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(keyFile, 'utf8'))).toMatchObject({ ...jwks.keys[0], d: expect.any(String) });
  // a second run reads the same key
  const again = spawnSync(process.execPath, ['examples/oauth-app.ts', '--print-jwks'], {
    env: { PATH: process.env.PATH, PRIVATE_KEY_FILE: keyFile },
    encoding: 'utf8',
  });
  expect(JSON.parse(again.stdout)).toEqual(jwks);

  const patched = await svc.app.inject({
    method: 'PATCH',
    url: `/api/v1/merchant/apps/${app.id}`,
    headers: developer.auth,
    payload: { token_endpoint_auth_method: 'private_key_jwt', jwks },
  });
  expect(patched.statusCode, patched.body).toBe(200);
  await startExample(['--private-key-jwt'], {
    CLIENT_ID: app.client_id,
    PRIVATE_KEY_FILE: keyFile,
    PORT: String(port),
  });

  const s = await browser.open();
  const { page } = s;
  expect(await install(page, base)).toMatchObject({
    merchant_id: shop.merchantId,
    store_id: shop.storeId,
    token_type: 'bearer',
    cart_status: 201,
  });
  await page.goto(`${base}/refresh`);
  expect(await result(page)).toEqual({ token_type: 'bearer', stores_status: 200 });
  await page.goto(`${base}/installations`);
  const listed = (await result(page)) as {
    status: number;
    installations: { grant_id: string; store_id: string }[];
  };
  expect(listed.status).toBe(200);
  expect(listed.installations.map((i) => i.store_id)).toEqual([shop.storeId]);
  // an assertion for each token request: the exchange, the refresh and the app token
  expect(await jtis(app.client_id)).toBeGreaterThanOrEqual(3);

  await page.goto(`${base}/uninstall?grant_id=${listed.installations[0]!.grant_id}`);
  expect(await result(page)).toEqual({ status: 204 });
  await page.goto(`${base}/installations`);
  expect(await result(page)).toEqual({ status: 200, installations: [] });
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});

it('--dpop: every token is bound to the example’s key and every call carries a proof', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await createApp(base);
  await startExample(['--dpop'], {
    CLIENT_ID: app.client_id,
    CLIENT_SECRET: app.client_secret,
    PORT: String(port),
  });
  const s = await browser.open();
  const { page } = s;
  expect(await install(page, base)).toMatchObject({
    store_id: shop.storeId,
    token_type: 'dpop',
    cart_status: 201,
  });
  await page.goto(`${base}/refresh`);
  expect(await result(page)).toEqual({ token_type: 'dpop', stores_status: 200 });
  await page.goto(`${base}/installations`);
  expect(await result(page)).toMatchObject({ status: 200, installations: [{ store_id: shop.storeId }] });

  // The access tokens of the installation, and the app token, all name one key.
  const bound = await svc.ctx.db
    .selectFrom('oauth_tokens')
    .select('jkt')
    .where('app_id', '=', app.id)
    .where('kind', '=', 'access')
    .execute();
  const appTokens = await svc.ctx.db
    .selectFrom('oauth_app_tokens')
    .select('jkt')
    .where('app_id', '=', app.id)
    .execute();
  expect(bound).toHaveLength(2); // the exchange's and the refresh's
  const keys = new Set([...bound, ...appTokens].map((t) => t.jkt));
  expect(keys.size).toBe(1);
  const [jkt] = [...keys];
  expect(jkt).toMatch(/^[\w-]{43}$/);
  // a proof for each token request and each call: the exchange, GET /stores and the cart, the refresh and
  // its GET /stores, the app token and its list
  expect(await jtis(`dpop:${jkt}`)).toBeGreaterThanOrEqual(7);
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});
