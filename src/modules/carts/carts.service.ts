// Carts of the public interface (API.md section 6). A cart belongs to a store of the caller's merchant and to
// the caller's mode; one idle for `cartAbandonAfter` seconds becomes `abandoned`, announced by `cart.abandoned`
// in the same transaction (the outbox), once however many processes sweep.
import type { Static } from 'typebox';
import type { Context } from '../../context.ts';
import type { PublicPrincipal } from '../../http/request.ts';
import { notFound } from '../../lib/errors.ts';
import { isId, newId } from '../../lib/ids.ts';
import { iso } from '../../lib/time.ts';
import type { CartItem } from '../events/index.ts';
import { emitEvent } from '../outbox/index.ts';
import * as repo from './carts.repository.ts';

export function presentCart(row: repo.CartRow) {
  return {
    id: row.id,
    store_id: row.store_id,
    status: row.status,
    // No item routes exist yet (seed: other areas of the public interface are not shown).
    items: [] as Static<typeof CartItem>[],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function createCart(ctx: Context, principal: PublicPrincipal, storeId: string) {
  const now = ctx.clock.now();
  const row = isId('store', storeId)
    ? await repo.insertCartInOwnStore(
        ctx.db,
        {
          id: newId('cart', now),
          merchant_id: principal.merchantId,
          mode: principal.mode,
          store_id: storeId,
        },
        new Date(now),
      )
    : undefined;
  if (!row) throw notFound('store');
  return presentCart(row);
}

const byTenant = (a: { merchant_id: string; mode: string }, b: { merchant_id: string; mode: string }) =>
  a.merchant_id < b.merchant_id
    ? -1
    : a.merchant_id > b.merchant_id
      ? 1
      : a.mode < b.mode
        ? -1
        : a.mode > b.mode
          ? 1
          : 0;

// One batch per transaction keeps each transaction short; the loop drains a backlog in one sweep.
const BATCH = 200;

/** Abandons every cart idle for `cartAbandonAfter` seconds of the service's clock; returns how many. */
export async function sweepAbandonedCarts(ctx: Context): Promise<number> {
  const now = new Date(ctx.clock.now());
  const idleSince = new Date(now.getTime() - ctx.config.cartAbandonAfter * 1000);
  let total = 0;
  for (;;) {
    let enqueued = 0;
    const done = await ctx.db.transaction().execute(async (trx) => {
      const carts = await repo.abandonIdleCarts(trx, idleSince, now, BATCH);
      enqueued = 0;
      // In merchant and mode order, as the ingestion batches take the sequence counters, so that this
      // transaction and a batch never wait on each other's counters in a cycle.
      for (const cart of carts.toSorted(byTenant)) {
        const emitted = await emitEvent(
          trx,
          {
            merchantId: cart.merchant_id,
            mode: cart.mode,
            type: 'cart.abandoned',
            data: presentCart(cart),
          },
          now,
        );
        enqueued += emitted.deliveries;
      }
      return carts.length;
    });
    // counted once committed: a rolled-back sweep recorded nothing
    for (let i = 0; i < done; i++) ctx.metrics.countEvent('cart.abandoned', i === 0 ? enqueued : 0);
    total += done;
    if (done < BATCH) return total;
  }
}
