// Two services on one database, as two processes: a revocation on one stops the token on the other at once
// (within the bus's delivery time), although the other had it cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { createApp, exchange, getCode, readWith, type TestApp } from './helpers.ts';

let a: TestService;
let b: TestService;
let dev: TestMerchant;
let shop: TestMerchant;

beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  dev = await signupMerchant(a.app, 'Dev Co');
  shop = await signupMerchant(a.app, 'Shop');
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const APPS = '/api/v1/merchant/developer/apps';

async function installed(): Promise<{ app: TestApp; access: string }> {
  const app = await createApp(a.app, dev);
  const { code, verifier } = await getCode(a.app, app, shop);
  const { access_token } = await exchange(a.app, app, code, verifier);
  // warm both caches
  expect(await readWith(a.app, access_token)).toBe(200);
  expect(await readWith(b.app, access_token)).toBe(200);
  return { app, access: access_token };
}

async function stopsWithinASecond(access: string) {
  expect(await readWith(a.app, access)).toBe(401);
  const started = Date.now();
  await eventually(async () => (await readWith(b.app, access)) === 401, {
    timeoutMs: 1000,
    what: 'the other process to refuse the token',
  });
  return Date.now() - started;
}

describe('revocations reach every process', () => {
  it('deleting the app', async () => {
    const { app, access } = await installed();
    await a.app.inject({ method: 'DELETE', url: `${APPS}/${app.id}`, headers: dev.auth });
    await stopsWithinASecond(access);
  });

  it('disconnecting the merchant', async () => {
    const { app, access } = await installed();
    const list = await a.app.inject({ url: '/api/v1/merchant/developer/connections', headers: shop.auth });
    const grant = list.json().data.items.find((c: { app: { id: string } }) => c.app.id === app.id);
    await a.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/connections/${grant.id}`,
      headers: shop.auth,
    });
    await stopsWithinASecond(access);
  });

  it('narrowing the scopes', async () => {
    const { app, access } = await installed();
    await a.app.inject({
      method: 'PATCH',
      url: `${APPS}/${app.id}`,
      headers: dev.auth,
      payload: { allowed_scopes: ['public:write'] },
    });
    await eventually(async () => (await readWith(b.app, access)) === 403, {
      timeoutMs: 1000,
      what: 'the other process to narrow the token',
    });
  });
});
