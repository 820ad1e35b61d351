// `svc logs tail --app` (API.md section 12.3) end to end: the app's owner, signed in with `svc login`, tails
// the calls its app makes on another merchant's store as they happen, each line naming the store, a call
// refused after the store disconnected the app included; a call of the owner's other app is not printed, and
// `--store` narrows to one installing store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { createApp, exchange, getCode, type TestApp } from '../oauth/helpers.ts';
import type { Requests } from '../../src/modules/requests/index.ts';
import { runCli, startCli, type Cli } from './cli-processes.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let other: TestMerchant;
let app: TestApp;
let otherApp: TestApp;
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-config-'));
const env = () => ({ XDG_CONFIG_HOME: configHome, HOME: configHome, SVC_API_URL: svc.url });
const tails: Cli[] = [];

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  dev = await signupMerchant(svc.app, 'Tail Developer');
  shop = await signupMerchant(svc.app, 'Tail Shop');
  other = await signupMerchant(svc.app, 'Other Shop');
  app = await createApp(svc.app, dev);
  otherApp = await createApp(svc.app, dev, { name: 'Other app' });
  const login = await runCli(['login', '--email', dev.email], env(), `${dev.password}\n`);
  expect(login.status).toBe(0);
}, 180_000);
afterAll(async () => {
  for (const t of tails) t.child.kill('SIGKILL');
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

const flush = () => (svc.modules.find((x) => x.name === 'requests') as Requests).batch.flush();

async function install(client: TestApp, merchant: TestMerchant): Promise<string> {
  const { code, verifier } = await getCode(svc.app, client, merchant);
  return (await exchange(svc.app, client, code, verifier)).access_token;
}

async function read(token: string, requestId: string): Promise<number> {
  const res = await fetch(`${svc.url}/api/public/v1/stores`, {
    headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
  });
  await res.arrayBuffer();
  return res.status;
}

async function started(args: string[]): Promise<Cli> {
  const cli = startCli(['logs', 'tail', ...args], env());
  tails.push(cli);
  await eventually(async () => cli.stderr().includes('Ready.'), { what: 'svc logs tail to be ready' });
  return cli;
}

it("prints the app's calls on the stores that installed it, refused ones included, and no other app's", async () => {
  const onShop = await install(app, shop);
  const onOther = await install(app, other);
  const otherAppsToken = await install(otherApp, shop);
  const all = await started(['--app', app.id]);
  const oneStore = await started(['--app', app.id, '--store', other.storeId]);

  expect(await read(onShop, 'req_tail_app_shop')).toBe(200);
  expect(await read(onOther, 'req_tail_app_other')).toBe(200);
  expect(await read(otherAppsToken, 'req_tail_other_app')).toBe(200);
  // the shop disconnects the app: the next call is refused, and still the app's
  const connections = await svc.app.inject({
    url: '/api/v1/merchant/developer/connections',
    headers: shop.auth,
  });
  const grant = (connections.json().data.items as { id: string; app: { id: string } }[]).find(
    (g) => g.app.id === app.id,
  )!;
  const gone = await svc.app.inject({
    method: 'DELETE',
    url: `/api/v1/merchant/developer/connections/${grant.id}`,
    headers: shop.auth,
  });
  expect(gone.statusCode).toBe(204);
  expect(await read(onShop, 'req_tail_app_refused')).toBe(401);
  await flush();

  const shopLine = new RegExp(
    `200\\s+GET\\s+/api/public/v1/stores .*req_tail_app_shop .*on ${shop.storeId}$`,
    'm',
  );
  await all.waitFor(shopLine);
  await all.waitFor(new RegExp(`req_tail_app_other .*on ${other.storeId}$`, 'm'));
  await all.waitFor(new RegExp(`401 invalid_credential .*req_tail_app_refused .*on ${shop.storeId}$`, 'm'));
  await oneStore.waitFor(/req_tail_app_other/);
  // A later call is printed by a later poll, which has read the first ones again: by then each tail has
  // printed all it will of them.
  expect(await read(onOther, 'req_tail_app_later')).toBe(200);
  await flush();
  await all.waitFor(/req_tail_app_later/);
  await oneStore.waitFor(/req_tail_app_later/);
  expect(all.stdout()).not.toContain('req_tail_other_app');
  expect(all.stdout().match(/req_tail_app_shop/g)).toHaveLength(1);
  expect(oneStore.stdout()).not.toContain('req_tail_app_shop');
  expect(oneStore.stdout()).not.toContain('req_tail_app_refused');
});
