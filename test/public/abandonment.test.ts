// Several processes sweep at once: every idle cart is abandoned, and announced, exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { sweepAbandonedCarts } from '../../src/modules/carts/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { bearer, createKey } from '../api-keys/keys.ts';
import { eventually } from '../support/eventually.ts';
import { TestClock } from '../support/clock.ts';

let a: TestService;
let b: TestService;
// Both processes read one clock, as two hosts synchronised by NTP would.
const clock = new TestClock();
beforeAll(async () => {
  const env = { SVC_CART_ABANDON_AFTER: '60' };
  a = await startTestService({ env, clock });
  b = await startTestService({ env, shareWith: a, clock });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('cart abandonment with two processes', () => {
  it('emits cart.abandoned exactly once per cart when both sweep concurrently', async () => {
    const m = await signupMerchant(a.app);
    const key = await createKey(a.app, m);
    const viaRoute = await b.app.inject({
      method: 'POST',
      url: `/api/public/v1/stores/${m.storeId}/cart`,
      headers: bearer(key.secret_key),
    });
    expect(viaRoute.statusCode).toBe(201);
    // More carts than one sweep batch (200), so that the sweepers interleave over several batches.
    const made = new Date(clock.now());
    const rows = Array.from({ length: 699 }, (_, i) => ({
      id: newId('cart', made.getTime()),
      merchant_id: m.merchantId,
      mode: i % 2 ? ('live' as const) : ('test' as const),
      store_id: m.storeId,
      updated_at: made,
    }));
    await a.ctx.db.insertInto('carts').values(rows).execute();
    const ids = new Set([viaRoute.json().data.id as string, ...rows.map((r) => r.id)]);

    clock.advance(61_000);
    const counts = await Promise.all([
      sweepAbandonedCarts(a.ctx),
      sweepAbandonedCarts(b.ctx),
      sweepAbandonedCarts(a.ctx),
      sweepAbandonedCarts(b.ctx),
    ]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(ids.size);

    const events = await a.ctx.db
      .selectFrom('events')
      .select(['payload', 'mode'])
      .where('merchant_id', '=', m.merchantId)
      .where('type', '=', 'cart.abandoned')
      .execute();
    expect(events).toHaveLength(ids.size);
    const seen = events.map((e) => JSON.parse(e.payload).data as { id: string; status: string });
    expect(new Set(seen.map((c) => c.id))).toEqual(ids);
    expect(seen.every((c) => c.status === 'abandoned')).toBe(true);
    const carts = await a.ctx.db
      .selectFrom('carts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('merchant_id', '=', m.merchantId)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    expect(Number(carts.n)).toBe(0);

    // and later sweeps find nothing more
    clock.advance(3600_000);
    expect(await sweepAbandonedCarts(b.ctx)).toBe(0);
  });

  it('sweeps on its own from start(): a cart idle past the period is abandoned by the workers', async () => {
    const own = new TestClock();
    const svc = await startTestService({ env: { SVC_CART_ABANDON_AFTER: '1' }, workers: true, clock: own });
    try {
      const m = await signupMerchant(svc.app);
      const key = await createKey(svc.app, m);
      const res = await svc.app.inject({
        method: 'POST',
        url: `/api/public/v1/stores/${m.storeId}/cart`,
        headers: bearer(key.secret_key),
      });
      const id = res.json().data.id as string;
      // idle past abandonAfter (1 s) at once; the loop sweeps every 0.5 s of real time
      own.advance(1001);
      await eventually(
        async () => {
          const row = await svc.ctx.db
            .selectFrom('carts')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          return row.status === 'abandoned';
        },
        { intervalMs: 100, what: 'the sweep to abandon the cart' },
      );
    } finally {
      await svc.close();
    }
  });
});
