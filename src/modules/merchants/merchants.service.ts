// Merchants and their stores (API.md section 2). Who acts for a merchant (users, memberships, sessions, second
// factors) is the identity module's; it creates a merchant with its owner through `insertMerchant` here.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { iso } from '../../lib/time.ts';
import * as repo from './merchants.repository.ts';

export type MerchantRow = NonNullable<Awaited<ReturnType<typeof repo.findMerchant>>>;

export const presentMerchant = (m: MerchantRow) => ({
  id: m.id,
  name: m.name,
  created_at: iso(m.created_at),
});

/** A new merchant and its first store, inside the caller's transaction (the owner is the caller's). */
export async function insertMerchant(trx: Executor, now: number, name: string, storeName = name) {
  const merchant = await repo.insertMerchant(trx, { id: newId('mer', now), name });
  const store = await repo.insertStore(trx, {
    id: newId('store', now),
    merchant_id: merchant.id,
    name: storeName,
  });
  return { merchant, store };
}

export async function findMerchant(db: Executor, merchantId: string): Promise<MerchantRow | undefined> {
  return repo.findMerchant(db, merchantId);
}

/** The merchant's stores, as the merchant interface shows them. */
export async function storesOf(db: Executor, merchantId: string) {
  const stores = await repo.listStores(db, merchantId);
  return stores.map((s) => ({ id: s.id, name: s.name, created_at: iso(s.created_at) }));
}

/** For other modules: the store if it belongs to the merchant (a store of another merchant is not found). */
export async function findMerchantStore(db: Executor, merchantId: string, storeId: string) {
  return repo.findStore(db, merchantId, storeId);
}

export async function merchantName(db: Executor, merchantId: string): Promise<string | undefined> {
  return (await repo.findMerchant(db, merchantId))?.name;
}

export const isEmptyDatabase = async (ctx: Context) => (await repo.countMerchants(ctx.db)) === 0;
