import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import type { ApiKeysModule } from '../../src/modules/api-keys/index.ts';
import { bearer, createKey, keyCall } from './keys.ts';

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
});
afterAll(async () => svc?.close());

const list = async (merchant: TestMerchant, mode = 'test', query = '') =>
  svc.app.inject({
    url: `/api/v1/merchant/api-keys${query}`,
    headers: { ...merchant.auth, 'x-svc-mode': mode },
  });

const countries = (token: string) =>
  svc.app.inject({ url: '/api/public/v1/payments/supported-countries', headers: bearer(token) });

describe('key pairs', () => {
  it('creates a pair with both keys, the object of the contract and default scopes', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/api-keys',
      headers: m.auth,
    });
    expect(res.statusCode).toBe(201);
    const key = res.json().data;
    expect(Object.keys(key).sort()).toEqual(
      [
        'id',
        'name',
        'mode',
        'publishable_key',
        'secret_key',
        'secret_key_last4',
        'scopes',
        'status',
        'rotated_from',
        'created_at',
        'last_used_at',
        'expires_at',
        'revoked_at',
      ].sort(),
    );
    expect(key).toMatchObject({
      mode: 'test',
      scopes: ['public:*'],
      status: 'active',
      rotated_from: null,
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    });
    expect(key.id).toMatch(/^key_[0-9a-z]{30}$/);
    expect(key.secret_key).toMatch(/^svc_test_sk_[0-9A-Za-z]{36}$/);
    expect(key.publishable_key).toMatch(/^svc_test_pk_[0-9A-Za-z]{36}$/);
    expect(key.secret_key_last4).toBe(key.secret_key.slice(-4));
    expect(key.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('makes live keys in live mode, with the given name and scopes', async () => {
    const key = await createKey(svc.app, m, { mode: 'live', scopes: ['public:read'], name: 'Backend' });
    expect(key.secret_key).toMatch(/^svc_live_sk_/);
    expect(key.publishable_key).toMatch(/^svc_live_pk_/);
    expect(key).toMatchObject({ mode: 'live', scopes: ['public:read'], name: 'Backend' });
  });

  it('validates the body', async () => {
    for (const payload of [
      { scopes: [] },
      { scopes: ['admin'] },
      { scopes: ['public:read', 'public:read'] },
      { name: '' },
      { extra: 1 },
    ]) {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/api-keys',
        headers: m.auth,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });

  it('lists the keys of the mode, newest first, without the secret key, and pages', async () => {
    const other = await signupMerchant(svc.app);
    const a = await createKey(svc.app, other);
    const b = await createKey(svc.app, other);
    const live = await createKey(svc.app, other, { mode: 'live' });
    const res = await list(other);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ count: 2, has_more: false, next_cursor: null });
    expect(data.items.map((k: { id: string }) => k.id)).toEqual([b.id, a.id]);
    expect(data.items[0].secret_key).toBeUndefined();
    expect(data.items[0].publishable_key).toBe(b.publishable_key);
    expect(res.body).not.toContain(b.secret_key);

    const first = (await list(other, 'test', '?limit=1')).json().data;
    expect(first).toMatchObject({ count: 2, has_more: true, next_cursor: b.id });
    const second = (await list(other, 'test', `?limit=1&starting_after=${b.id}`)).json().data;
    expect(second.items.map((k: { id: string }) => k.id)).toEqual([a.id]);

    const lives = (await list(other, 'live')).json().data;
    expect(lives.items.map((k: { id: string }) => k.id)).toEqual([live.id]);
  });

  it('rotates: a new pair that names the old one, the old one expiring then expired', async () => {
    const key = await createKey(svc.app, m, { scopes: ['public:read', 'public:write'], name: 'Rotating' });
    const res = await keyCall(svc.app, m, key.id, 'rotate', { payload: { previous_key_expires_in: 3600 } });
    expect(res.statusCode).toBe(201);
    const next = res.json().data;
    expect(next.id).not.toBe(key.id);
    expect(next).toMatchObject({
      rotated_from: key.id,
      status: 'active',
      scopes: ['public:read', 'public:write'],
      name: 'Rotating',
    });
    expect(next.secret_key).toMatch(/^svc_test_sk_/);
    expect(next.secret_key).not.toBe(key.secret_key);
    expect(next.publishable_key).not.toBe(key.publishable_key);

    const old = (await list(m)).json().data.items.find((k: { id: string }) => k.id === key.id);
    expect(old.status).toBe('expiring');
    const expires = Date.parse(old.expires_at) - Date.now();
    expect(expires).toBeGreaterThan(3500_000);
    expect(expires).toBeLessThanOrEqual(3600_000);
    // during the grace period both pairs work
    expect((await countries(key.secret_key)).statusCode).toBe(200);
    expect((await countries(next.secret_key)).statusCode).toBe(200);

    // an expiring pair does not rotate again
    const again = await keyCall(svc.app, m, key.id, 'rotate');
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('conflict');
  });

  it('rotates with no grace: the old pair is expired at once and refused', async () => {
    const key = await createKey(svc.app, m);
    expect((await countries(key.publishable_key)).statusCode).toBe(200); // warm the cache
    const res = await keyCall(svc.app, m, key.id, 'rotate');
    expect(res.statusCode).toBe(201);
    const old = (await list(m)).json().data.items.find((k: { id: string }) => k.id === key.id);
    expect(old.status).toBe('expired');
    for (const token of [key.secret_key, key.publishable_key]) {
      const refused = await countries(token);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('invalid_credential');
    }
    expect((await countries(res.json().data.secret_key)).statusCode).toBe(200);
  });

  it('revokes: both keys stop at once, and a second revoke answers the same', async () => {
    const key = await createKey(svc.app, m);
    expect((await countries(key.secret_key)).statusCode).toBe(200);
    expect((await countries(key.publishable_key)).statusCode).toBe(200);
    const res = await keyCall(svc.app, m, key.id, 'revoke');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: key.id, status: 'revoked' });
    expect(res.json().data.secret_key).toBeUndefined();
    expect(res.json().data.revoked_at).toMatch(/Z$/);
    for (const token of [key.secret_key, key.publishable_key]) {
      expect((await countries(token)).statusCode).toBe(401);
    }
    const again = await keyCall(svc.app, m, key.id, 'revoke');
    expect(again.statusCode).toBe(200);
    expect(again.json().data.revoked_at).toBe(res.json().data.revoked_at);
    const rotate = await keyCall(svc.app, m, key.id, 'rotate');
    expect(rotate.statusCode).toBe(409);
  });

  it("answers 404 for another merchant's key, a key of the other mode, and an unknown id", async () => {
    const other = await signupMerchant(svc.app);
    const theirs = await createKey(svc.app, other);
    const live = await createKey(svc.app, m, { mode: 'live' });
    for (const [id, mode] of [
      [theirs.id, 'test'],
      [live.id, 'test'],
      ['key_00000000000000000000000000000', 'test'],
      ['nonsense', 'live'],
    ] as const) {
      for (const action of ['rotate', 'revoke'] as const) {
        const res = await keyCall(svc.app, m, id, action, { mode });
        expect(res.statusCode, `${action} ${id}`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
      }
    }
    expect((await countries(theirs.secret_key)).statusCode).toBe(200);
  });

  it('needs a merchant session', async () => {
    const res = await svc.app.inject({ method: 'POST', url: '/api/v1/merchant/api-keys' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
  });

  it('keeps last_used_at current without a write per request', async () => {
    const key = await createKey(svc.app, m);
    const before = Date.now();
    expect((await countries(key.publishable_key)).statusCode).toBe(200);
    // shown at once by the process that saw the use
    let listed = (await list(m)).json().data.items.find((k: { id: string }) => k.id === key.id);
    expect(Date.parse(listed.last_used_at)).toBeGreaterThanOrEqual(before - 5);
    // and in the database after a flush, for every other process
    const apiKeys = svc.modules.find((m): m is ApiKeysModule => m.name === 'api-keys')!;
    await apiKeys.keys.uses.flush();
    const row = await svc.ctx.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at!.getTime()).toBeGreaterThanOrEqual(before - 5);
    listed = (await list(m)).json().data.items.find((k: { id: string }) => k.id === key.id);
    expect(listed.last_used_at).toBe(row.last_used_at!.toISOString());
  });
});

describe('audit of key changes', () => {
  it('records create, rotate and revoke with actor, ip and request id, and no secret', async () => {
    const merchant = await signupMerchant(svc.app);
    const key = await createKey(svc.app, merchant, { mode: 'live' });
    const rotated = await keyCall(svc.app, merchant, key.id, 'rotate', {
      mode: 'live',
      payload: { previous_key_expires_in: 60 },
    });
    const next = rotated.json().data;
    const revoked = await svc.app.inject({
      method: 'POST',
      url: `/api/v1/merchant/api-keys/${next.id}/revoke`,
      headers: {
        ...merchant.auth,
        'x-svc-mode': 'live',
        'x-request-id': 'revoke-req-1',
        'user-agent': 'ua/1',
      },
    });
    expect(revoked.statusCode).toBe(200);

    const res = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?entity_type=api_key',
      headers: { ...merchant.auth, 'x-svc-mode': 'live' },
    });
    expect(res.statusCode).toBe(200);
    const entries = res.json().data.items as {
      action: string;
      entity_type: string;
      entity_id: string;
      metadata: string;
    }[];
    expect(entries.map((e) => [e.action, e.entity_id])).toEqual([
      ['api_key.revoked', next.id],
      ['api_key.rotated', key.id],
      ['api_key.created', key.id],
    ]);
    for (const e of entries) {
      expect(e.entity_type).toBe('api_key');
      const meta = JSON.parse(e.metadata);
      expect(meta.actor).toEqual({ type: 'user', id: merchant.userId, email: merchant.email });
      expect(typeof meta.ip).toBe('string');
      expect(meta.request_id).toMatch(/^(req_|revoke-req-1)/);
    }
    expect(JSON.parse(entries[0]!.metadata).request_id).toBe('revoke-req-1');
    expect(JSON.parse(entries[1]!.metadata).new_key_id).toBe(next.id);
    // no secret anywhere in the log
    const all = JSON.stringify(entries);
    for (const secret of [key.secret_key, next.secret_key]) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(12, 30));
    }
    expect(all).not.toMatch(/svc_(test|live)_sk_/);

    // the test-mode log of the same merchant holds none of it
    const testLog = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?entity_type=api_key',
      headers: merchant.auth,
    });
    expect(testLog.json().data.items).toEqual([]);
  });
});
