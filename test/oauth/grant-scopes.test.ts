// Scopes follow the grant (API.md sections 3, 5 and 6): a new consent replaces the grant's scopes, and every
// token of the grant is bound by the grant's current scopes within the app's current allowed scopes, at once
// and on every instance; every token answer reports that effective scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import {
  basic,
  createApp,
  exchange,
  getCode,
  readWith,
  refresh,
  tokenCall,
  type TestApp,
} from './helpers.ts';
import { eventually } from '../support/eventually.ts';

let a: TestService;
let b: TestService;
let dev: TestMerchant;

beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  dev = await signupMerchant(a.app, 'Dev Co');
}, 180_000); // embedded databases start slowly on a loaded machine
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function write(svc: TestService, shop: TestMerchant, token: string): Promise<number> {
  const res = await svc.app.inject({
    method: 'POST',
    url: `/api/public/v1/stores/${shop.storeId}/cart`,
    headers: { authorization: `Bearer ${token}` },
  });
  return res.statusCode;
}

async function connectionScopes(shop: TestMerchant, app: TestApp): Promise<string[]> {
  const res = await a.app.inject({ url: '/api/v1/merchant/developer/connections', headers: shop.auth });
  return res.json().data.items.find((c: { app: { id: string } }) => c.app.id === app.id).scopes;
}

describe('a new consent replaces the grant scopes', () => {
  it('narrows a live access token at once here and within a second on the other instance', async () => {
    const shop = await signupMerchant(a.app, 'Shop');
    const app = await createApp(a.app, dev);
    const first = await getCode(a.app, app, shop, { scope: 'public:*' });
    const wide = await exchange(a.app, app, first.code, first.verifier);
    expect(wide.scope).toBe('public:*');
    // warm both caches with the wide token
    expect(await write(a, shop, wide.access_token)).toBe(201);
    expect(await write(b, shop, wide.access_token)).toBe(201);

    await getCode(a.app, app, shop, { scope: 'public:read' }); // the merchant approves again, narrower
    expect(await connectionScopes(shop, app)).toEqual(['public:read']);
    expect(await write(a, shop, wide.access_token)).toBe(403);
    const started = Date.now();
    await eventually(async () => (await write(b, shop, wide.access_token)) === 403, {
      timeoutMs: 1000,
      what: 'the other process to refuse the write',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    // reads still work: the token is bound, not revoked
    expect(await readWith(a.app, wide.access_token)).toBe(200);
    expect(await readWith(b.app, wide.access_token)).toBe(200);

    // the old refresh chain follows the grant too, and may not ask for more than it now holds
    const refreshed = await refresh(a.app, app, wide.refresh_token);
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().scope).toBe('public:read');
    expect(await write(a, shop, refreshed.json().access_token)).toBe(403);
    const more = await tokenCall(
      a.app,
      { grant_type: 'refresh_token', refresh_token: refreshed.json().refresh_token, scope: 'public:*' },
      basic(app),
    );
    expect(more.statusCode).toBe(400);
    expect(more.json().error).toBe('invalid_scope');
  });

  it('a code approved before a narrower consent is exchanged for what the grant now holds', async () => {
    const shop = await signupMerchant(a.app, 'Shop two');
    const app = await createApp(a.app, dev);
    const early = await getCode(a.app, app, shop, { scope: 'public:*' });
    await getCode(a.app, app, shop, { scope: 'public:read' });
    const tokens = await exchange(a.app, app, early.code, early.verifier);
    expect(tokens.scope).toBe('public:read');
    expect(await write(a, shop, tokens.access_token)).toBe(403);
  });

  it('a wider consent widens the grant again', async () => {
    const shop = await signupMerchant(a.app, 'Shop three');
    const app = await createApp(a.app, dev);
    const narrow = await getCode(a.app, app, shop, { scope: 'public:read' });
    const tokens = await exchange(a.app, app, narrow.code, narrow.verifier);
    expect(tokens.scope).toBe('public:read');
    const wide = await getCode(a.app, app, shop, { scope: 'public:*' });
    const wider = await exchange(a.app, app, wide.code, wide.verifier);
    expect(wider.scope).toBe('public:*');
    expect(await write(a, shop, wider.access_token)).toBe(201);
    // a token issued for public:read keeps what it was issued for
    expect(await write(a, shop, tokens.access_token)).toBe(403);
  });
});

describe("the app's allowed scopes bound every token answer", () => {
  it('narrowing allowed_scopes changes the scope a refresh reports', async () => {
    const shop = await signupMerchant(a.app, 'Shop four');
    const app = await createApp(a.app, dev);
    const code = await getCode(a.app, app, shop);
    const tokens = await exchange(a.app, app, code.code, code.verifier);
    expect(tokens.scope).toBe('public:*');
    const patch = await a.app.inject({
      method: 'PATCH',
      url: `/api/v1/merchant/developer/apps/${app.id}`,
      headers: dev.auth,
      payload: { allowed_scopes: ['public:read'] },
    });
    expect(patch.statusCode).toBe(200);
    const refreshed = await refresh(a.app, app, tokens.refresh_token);
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().scope).toBe('public:read');
    expect(await write(a, shop, refreshed.json().access_token)).toBe(403);
    // on the other instance as well
    const onB = await refresh(b.app, app, refreshed.json().refresh_token);
    expect(onB.statusCode).toBe(200);
    expect(onB.json().scope).toBe('public:read');
    // widening the app again gives back what the merchant granted
    await a.app.inject({
      method: 'PATCH',
      url: `/api/v1/merchant/developer/apps/${app.id}`,
      headers: dev.auth,
      payload: { allowed_scopes: ['public:*'] },
    });
    const back = await refresh(a.app, app, onB.json().refresh_token);
    expect(back.json().scope).toBe('public:*');
  });
});
