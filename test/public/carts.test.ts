import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { bearer, createKey, type TestKey } from '../api-keys/keys.ts';
import { sweepAbandonedCarts } from '../../src/modules/carts/index.ts';
import { TestClock } from '../support/clock.ts';

let svc: TestService;
let m: TestMerchant;
let key: TestKey;
const clock = new TestClock();
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_CART_ABANDON_AFTER: '3600' }, clock });
  m = await signupMerchant(svc.app);
  key = await createKey(svc.app, m);
});
afterAll(async () => svc?.close());

const createCart = (storeId: string, headers: Record<string, string>, payload?: unknown) =>
  svc.app.inject({
    method: 'POST',
    url: `/api/public/v1/stores/${storeId}/cart`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

describe('POST /stores/{storeID}/cart', () => {
  it('answers 201 with an empty active cart of the store', async () => {
    const res = await createCart(m.storeId, bearer(key.secret_key, 'test'));
    expect(res.statusCode).toBe(201);
    const cart = res.json().data;
    expect(Object.keys(cart).sort()).toEqual(
      ['id', 'store_id', 'status', 'items', 'created_at', 'updated_at'].sort(),
    );
    expect(cart.id).toMatch(/^cart_[0-9a-z]{30}$/);
    expect(cart).toMatchObject({ store_id: m.storeId, status: 'active', items: [] });
    expect(cart.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(cart.updated_at).toBe(cart.created_at);
  });

  it('takes no body, {} or an empty JSON body, and refuses fields', async () => {
    expect((await createCart(m.storeId, bearer(key.secret_key), {})).statusCode).toBe(201);
    const typed = await createCart(m.storeId, {
      ...bearer(key.secret_key),
      'content-type': 'application/json',
    });
    expect(typed.statusCode).toBe(201);
    const extra = await createCart(m.storeId, bearer(key.secret_key), { items: [] });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.code).toBe('validation_failed');
    expect(extra.json().error.details[0].field).toBe('items');
  });

  it("answers 404 for another merchant's store and for an unknown store", async () => {
    const other = await signupMerchant(svc.app);
    for (const storeId of [other.storeId, 'store_00000000000000000000000000000', 'nope']) {
      const res = await createCart(storeId, bearer(key.secret_key));
      expect(res.statusCode, storeId).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('makes live carts with live keys; stores are shared by both modes', async () => {
    const live = await createKey(svc.app, m, { mode: 'live' });
    const res = await createCart(m.storeId, bearer(live.secret_key, 'live'));
    expect(res.statusCode).toBe(201);
    const row = await svc.ctx.db
      .selectFrom('carts')
      .select('mode')
      .where('id', '=', res.json().data.id)
      .executeTakeFirstOrThrow();
    expect(row.mode).toBe('live');
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same request, with Idempotent-Replayed', async () => {
    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'order-42' };
    const first = await createCart(m.storeId, headers);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await createCart(m.storeId, headers, {});
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    const count = await svc.ctx.db
      .selectFrom('carts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', '=', first.json().data.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with another request', async () => {
    const other = await signupMerchant(svc.app); // a store of another merchant: another path
    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'k-conflict' };
    expect((await createCart(m.storeId, headers)).statusCode).toBe(201);
    const res = await createCart(other.storeId, headers);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_conflict');
    const body = await createCart(m.storeId, headers, { x: 1 });
    expect(body.statusCode).toBe(409);
    expect(body.json().error.code).toBe('idempotency_conflict');
  });

  it('is checked before the route: the stored 404 replays, and validation comes after', async () => {
    const other = await signupMerchant(svc.app);
    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'k-404' };
    const first = await createCart(other.storeId, headers);
    expect(first.statusCode).toBe(404);
    const again = await createCart(other.storeId, headers);
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('is scoped per merchant and per mode', async () => {
    const live = await createKey(svc.app, m, { mode: 'live' });
    const other = await signupMerchant(svc.app);
    const theirs = await createKey(svc.app, other);
    const a = await createCart(m.storeId, { ...bearer(key.secret_key), 'idempotency-key': 'shared' });
    const b = await createCart(m.storeId, { ...bearer(live.secret_key), 'idempotency-key': 'shared' });
    const c = await createCart(other.storeId, { ...bearer(theirs.secret_key), 'idempotency-key': 'shared' });
    for (const res of [a, b, c]) {
      expect(res.statusCode).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a, b, c].map((r) => r.json().data.id)).size).toBe(3);
  });

  it('answers 409 while the first request is still running', async () => {
    // a claim that has not answered yet, as a request in flight on another process leaves it
    const { insertRunning } = await import('../../src/modules/idempotency/idempotency.repository.ts');
    const { createHash } = await import('node:crypto');
    await insertRunning(
      svc.ctx.db,
      { merchantId: m.merchantId, mode: 'test', principal: `key:${key.id}`, key: 'in-flight' },
      {
        fingerprint: createHash('sha256').update('whatever').digest(),
        lockedUntil: new Date(clock.now() + 60_000),
        expiresAt: new Date(clock.now() + 86_400_000),
      },
    );
    const res = await createCart(m.storeId, { ...bearer(key.secret_key), 'idempotency-key': 'in-flight' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_conflict');
  });

  it('lets a request take over a key whose first request died, or whose entry expired', async () => {
    const { insertRunning } = await import('../../src/modules/idempotency/idempotency.repository.ts');
    const { createHash } = await import('node:crypto');
    const past = new Date(clock.now() - 1000);
    await insertRunning(
      svc.ctx.db,
      { merchantId: m.merchantId, mode: 'test', principal: `key:${key.id}`, key: 'dead' },
      {
        fingerprint: createHash('sha256').update('whatever').digest(),
        lockedUntil: past,
        expiresAt: new Date(clock.now() + 86_400_000),
      },
    );
    const res = await createCart(m.storeId, { ...bearer(key.secret_key), 'idempotency-key': 'dead' });
    expect(res.statusCode).toBe(201);

    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'old' };
    const first = await createCart(m.storeId, headers);
    await svc.ctx.db
      .updateTable('idempotency_keys')
      .set({ expires_at: past })
      .where('key', '=', 'old')
      .execute();
    const later = await createCart(m.storeId, headers);
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().data.id).not.toBe(first.json().data.id);
  });

  it('lets exactly one of two concurrent identical requests run', async () => {
    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'race' };
    const answers = await Promise.all([createCart(m.storeId, headers), createCart(m.storeId, headers)]);
    const fresh = answers.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    expect(fresh).toHaveLength(1);
    for (const other of answers.filter((r) => r !== fresh[0])) {
      if (other.statusCode === 409) expect(other.json().error.code).toBe('idempotency_conflict');
      else expect(other.json()).toEqual(fresh[0]!.json());
    }
  });

  it('does not store a 5xx first answer: the retry runs again', async () => {
    const { sql } = await import('kysely');
    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'k-500' };
    await sql`alter table carts rename to carts_away`.execute(svc.ctx.db);
    let failed;
    try {
      failed = await createCart(m.storeId, headers);
    } finally {
      await sql`alter table carts_away rename to carts`.execute(svc.ctx.db);
    }
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');
    const retry = await createCart(m.storeId, headers);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await createCart(m.storeId, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(retry.json());
  });

  it('purges expired entries', async () => {
    const { purgeExpiredIdempotencyKeys } = await import('../../src/modules/idempotency/index.ts');
    await createCart(m.storeId, { ...bearer(key.secret_key), 'idempotency-key': 'purge-me' });
    expect(await purgeExpiredIdempotencyKeys(svc.ctx)).toBe(0); // kept 24 hours
    clock.advance(25 * 3600 * 1000);
    expect(await purgeExpiredIdempotencyKeys(svc.ctx)).toBeGreaterThan(0);
    const left = await svc.ctx.db.selectFrom('idempotency_keys').select('key').execute();
    expect(left).toEqual([]);
  });

  it('refuses a key longer than 255 characters, and ignores the header on GET', async () => {
    const res = await createCart(m.storeId, {
      ...bearer(key.secret_key),
      'idempotency-key': 'x'.repeat(256),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
    const ok = await createCart(m.storeId, { ...bearer(key.secret_key), 'idempotency-key': 'x'.repeat(255) });
    expect(ok.statusCode).toBe(201);
    const get = await svc.app.inject({
      url: '/api/public/v1/payments/supported-countries',
      headers: { ...bearer(key.secret_key), 'idempotency-key': 'x'.repeat(300) },
    });
    expect(get.statusCode).toBe(200);
  });
});

describe('cart abandonment', () => {
  const eventsOf = async (type: string, merchantId: string) =>
    svc.ctx.db
      .selectFrom('events')
      .select(['id', 'mode', 'payload'])
      .where('merchant_id', '=', merchantId)
      .where('type', '=', type)
      .execute();

  it('abandons an idle active cart once and emits cart.abandoned with the cart', async () => {
    const merchant = await signupMerchant(svc.app);
    const live = await createKey(svc.app, merchant, { mode: 'live' });
    const res = await createCart(merchant.storeId, bearer(live.secret_key));
    const cart = res.json().data;
    // not yet idle
    clock.advance(3590_000);
    await sweepAbandonedCarts(svc.ctx);
    expect(await eventsOf('cart.abandoned', merchant.merchantId)).toEqual([]);

    clock.advance(11_000);
    const later = new Date(clock.now());
    await sweepAbandonedCarts(svc.ctx);
    clock.advance(7200_000);
    await sweepAbandonedCarts(svc.ctx);
    const events = await eventsOf('cart.abandoned', merchant.merchantId);
    expect(events).toHaveLength(1);
    expect(events[0]!.mode).toBe('live');
    const payload = JSON.parse(events[0]!.payload);
    expect(payload).toMatchObject({ type: 'cart.abandoned', mode: 'live', merchant_id: merchant.merchantId });
    expect(payload.data).toEqual({ ...cart, status: 'abandoned', updated_at: later.toISOString() });
  });
});
