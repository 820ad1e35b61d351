// An installed app learns its store: the token response of both grants names the installation, and
// GET /stores lists the stores any credential may act on (API.md sections 5 and 6).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { bearer, createKey, keyCall } from '../api-keys/keys.ts';
import { createApp, exchange, getCode, refresh } from '../oauth/helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  [dev, shop] = await Promise.all([signupMerchant(svc.app, 'Dev'), signupMerchant(svc.app, 'Corner Shop')]);
});
afterAll(async () => svc?.close());

const stores = (token: string) => svc.app.inject({ url: '/api/public/v1/stores', headers: bearer(token) });

it('names merchant, store and mode in the token response of both grants, then acts on that store', async () => {
  const client = await createApp(svc.app, dev);
  const { code, verifier } = await getCode(svc.app, client, shop);
  const tokens = await exchange(svc.app, client, code, verifier);
  expect(tokens).toMatchObject({ merchant_id: shop.merchantId, store_id: shop.storeId, mode: 'test' });

  const refreshed = await refresh(svc.app, client, tokens.refresh_token);
  expect(refreshed.statusCode).toBe(200);
  expect(refreshed.json()).toMatchObject({
    merchant_id: shop.merchantId,
    store_id: shop.storeId,
    mode: 'test',
    token_type: 'Bearer',
  });

  const listed = await stores(refreshed.json().access_token);
  expect(listed.statusCode).toBe(200);
  expect(listed.json()).toEqual({
    data: {
      items: [{ id: shop.storeId, name: 'Corner Shop', merchant_id: shop.merchantId, mode: 'test' }],
      count: 1,
      has_more: false,
      next_cursor: null,
    },
  });
  const cart = await svc.app.inject({
    method: 'POST',
    url: `/api/public/v1/stores/${listed.json().data.items[0].id}/cart`,
    headers: bearer(refreshed.json().access_token),
  });
  expect(cart.statusCode).toBe(201);
});

it('lists the store for secret and publishable keys of either mode, and 401 once revoked', async () => {
  const live = await createKey(svc.app, shop, { mode: 'live' });
  for (const token of [live.secret_key, live.publishable_key]) {
    const res = await stores(token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.items).toEqual([
      { id: shop.storeId, name: 'Corner Shop', merchant_id: shop.merchantId, mode: 'live' },
    ]);
  }
  expect((await keyCall(svc.app, shop, live.id, 'revoke', { mode: 'live' })).statusCode).toBe(200);
  for (const token of [live.secret_key, live.publishable_key]) {
    const res = await stores(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_credential');
  }
  expect((await stores('')).statusCode).toBe(401);
});

it('writes nothing to the audit log for the read', async () => {
  const key = await createKey(svc.app, shop);
  const count = async () =>
    (await svc.app.inject({ url: '/api/v1/merchant/developer/logs?limit=1', headers: shop.auth })).json().data
      .count as number;
  const before = await count();
  expect((await stores(key.secret_key)).statusCode).toBe(200);
  expect((await stores(key.publishable_key)).statusCode).toBe(200);
  expect(await count()).toBe(before);
});
