// Which store a credential acts on (API.md section 6, GET /stores, and the token response of section 5).
// A merchant has one store today; the list form leaves room for more. The first store of a merchant never
// changes, so the token endpoint's lookup is remembered per process: a refresh then costs no extra query.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { Scope } from '../../lib/scope.ts';
import * as repo from './merchants.repository.ts';

export interface PublicStore {
  id: string;
  name: string;
  merchant_id: string;
  mode: Mode;
}

// 10,000 merchants' ids are about 1 MB; beyond that the oldest entry goes (insertion order of a Map).
const MEMO_MAX = 10_000;

/** Each merchant's first store, remembered by this process (made by `createMerchants`). */
export interface FirstStores {
  readonly byMerchant: Map<string, string>;
}

export function createFirstStores(): FirstStores {
  return { byMerchant: new Map() };
}

/** The stores a credential of the merchant in the mode may act on, oldest first (one page: there are few). */
export async function listStores(ctx: Context, scope: Scope): Promise<PublicStore[]> {
  const rows = await repo.listStores(ctx.db, scope.merchantId);
  return rows.map((s) => ({ id: s.id, name: s.name, merchant_id: scope.merchantId, mode: scope.mode }));
}

/** The merchant's first store, read through `db` (a transaction's too): the store its sample events name. */
export async function firstStore(db: Executor, merchantId: string): Promise<{ id: string } | undefined> {
  const [first] = await repo.listStores(db, merchantId);
  return first;
}

/** The store an app installed by the merchant acts on (its first store); undefined if it has none. */
export async function installedStoreId(
  stores: FirstStores,
  ctx: Context,
  merchantId: string,
): Promise<string | undefined> {
  const memo = stores.byMerchant;
  const known = memo.get(merchantId);
  if (known) return known;
  const first = await firstStore(ctx.db, merchantId);
  if (!first) return undefined;
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
  memo.set(merchantId, first.id);
  return first.id;
}
