// The auth table of the public interface (API.md section 6, seed section 5), row by row, for each kind of
// key in both modes: exact status, code and headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCredential } from '../../src/lib/credentials.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { bearer, createKey, keyCall, type Mode, type TestKey } from '../api-keys/keys.ts';

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
});
afterAll(async () => svc?.close());

const COUNTRIES = '/api/public/v1/payments/supported-countries';
const cartUrl = () => `/api/public/v1/stores/${m.storeId}/cart`;

const read = (headers: Record<string, string>) => svc.app.inject({ url: COUNTRIES, headers });
const write = (headers: Record<string, string>) =>
  svc.app.inject({ method: 'POST', url: cartUrl(), headers });

function expectError(res: Awaited<ReturnType<typeof read>>, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code).toBe(code);
  expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
}

describe('no credential', () => {
  it.each([
    ['GET', read],
    ['POST', write],
  ])('%s answers 401 unauthenticated with a Bearer challenge', async (_method, call) => {
    const variants: Record<string, string>[] = [{}, { 'x-svc-mode': 'test' }, { 'x-svc-mode': 'live' }];
    for (const headers of variants) {
      const res = await call(headers);
      expectError(res, 401, 'unauthenticated');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    }
  });

  it('answers 401 invalid_credential for a non-Bearer scheme or an empty token', async () => {
    for (const authorization of ['Basic Zm9vOmJhcg==', 'Bearer ', 'Bearer']) {
      const res = await read({ authorization });
      expect(res.statusCode).toBe(401);
      expect(['unauthenticated', 'invalid_credential']).toContain(res.json().error.code);
    }
  });
});

describe.each(['test', 'live'] as const)('%s mode', (mode: Mode) => {
  const other: Mode = mode === 'test' ? 'live' : 'test';
  let key: TestKey;
  let revoked: TestKey;
  let expired: TestKey;
  let readOnly: TestKey;
  let writeOnly: TestKey;

  beforeAll(async () => {
    key = await createKey(svc.app, m, { mode });
    revoked = await createKey(svc.app, m, { mode });
    expired = await createKey(svc.app, m, { mode });
    readOnly = await createKey(svc.app, m, { mode, scopes: ['public:read'] });
    writeOnly = await createKey(svc.app, m, { mode, scopes: ['public:write'] });
    // warm the cache before the change: the refusal must come from invalidation, not from a cold lookup
    for (const k of [revoked, expired]) {
      expect((await read(bearer(k.secret_key))).statusCode).toBe(200);
      expect((await read(bearer(k.publishable_key))).statusCode).toBe(200);
    }
    expect((await keyCall(svc.app, m, revoked.id, 'revoke', { mode })).statusCode).toBe(200);
    expect((await keyCall(svc.app, m, expired.id, 'rotate', { mode })).statusCode).toBe(201);
  });

  const kinds = ['secret_key', 'publishable_key'] as const;

  it.each(kinds)('%s: a valid key reads, with or without a matching X-Svc-Mode', async (kind) => {
    for (const res of [await read(bearer(key[kind])), await read(bearer(key[kind], mode))]) {
      expect(res.statusCode).toBe(200);
      expect(res.json().data.has_more).toBe(false);
    }
  });

  it('secret_key: a valid key writes and makes a cart of its mode', async () => {
    const res = await write(bearer(key.secret_key, mode));
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ store_id: m.storeId, status: 'active', items: [] });
    const row = await svc.ctx.db
      .selectFrom('carts')
      .select(['mode', 'merchant_id'])
      .where('id', '=', res.json().data.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ mode, merchant_id: m.merchantId });
  });

  it.each(kinds)('%s: malformed, mistyped or unknown answers 401 invalid_credential', async (kind) => {
    const real = key[kind];
    const last = real.at(-1) === 'a' ? 'b' : 'a';
    const tokens = [
      `svc_${mode}_${kind === 'secret_key' ? 'sk' : 'pk'}_short`,
      real.slice(0, -1) + last, // checksum no longer matches
      real.slice(0, -2),
      real.replace(`svc_${mode}_`, `svc_${other}_`), // the other mode's prefix: checksum fails
      makeCredential(kind, mode).token, // well-formed, never issued
      'garbage',
    ];
    for (const token of tokens) {
      for (const call of [read, write]) {
        const res = await call(bearer(token));
        expectError(res, 401, 'invalid_credential');
        expect(res.headers['www-authenticate']).toMatch(/^Bearer\b.*invalid_token/);
      }
    }
  });

  it.each(kinds)('%s: revoked answers 401 invalid_credential', async (kind) => {
    for (const call of [read, write])
      expectError(await call(bearer(revoked[kind])), 401, 'invalid_credential');
  });

  it.each(kinds)('%s: expired (rotated with no grace) answers 401 invalid_credential', async (kind) => {
    for (const call of [read, write])
      expectError(await call(bearer(expired[kind])), 401, 'invalid_credential');
  });

  it.each(kinds)('%s: an X-Svc-Mode that disagrees answers 400 mode_mismatch', async (kind) => {
    expectError(await read(bearer(key[kind], other)), 400, 'mode_mismatch');
    expectError(await write(bearer(key[kind], other)), 400, 'mode_mismatch');
  });

  it.each(kinds)('%s: an invalid X-Svc-Mode answers 400 invalid_mode', async (kind) => {
    for (const value of ['TEST', 'prod', '']) {
      expectError(await read(bearer(key[kind], value || ' ')), 400, 'invalid_mode');
    }
    expectError(await write(bearer(key[kind], 'staging')), 400, 'invalid_mode');
  });

  it('publishable_key: a write answers 403 insufficient_scope', async () => {
    const res = await write(bearer(key.publishable_key, mode));
    expectError(res, 403, 'insufficient_scope');
    expect(res.headers['www-authenticate']).toMatch(/insufficient_scope/);
  });

  it('secret_key with only public:read: a write answers 403 insufficient_scope', async () => {
    expect((await read(bearer(readOnly.secret_key))).statusCode).toBe(200);
    expectError(await write(bearer(readOnly.secret_key)), 403, 'insufficient_scope');
  });

  it('secret_key with only public:write: a read answers 403 insufficient_scope', async () => {
    expect((await write(bearer(writeOnly.secret_key))).statusCode).toBe(201);
    expectError(await read(bearer(writeOnly.secret_key)), 403, 'insufficient_scope');
    // the publishable key of that pair is read-only whatever the secret key's scopes
    expect((await read(bearer(writeOnly.publishable_key))).statusCode).toBe(200);
  });
});

describe('order of the checks', () => {
  it('authenticates before the mode, the mode before the scope', async () => {
    const key = await createKey(svc.app, m);
    // unknown credential with a disagreeing mode: 401 first
    expectError(
      await write(bearer(makeCredential('secret_key', 'test').token, 'live')),
      401,
      'invalid_credential',
    );
    // publishable key writing with the wrong mode: 400 before 403
    expectError(await write(bearer(key.publishable_key, 'live')), 400, 'mode_mismatch');
  });
});
