import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { MerchantsTable, StoresTable } from './merchants.table.ts';

export async function insertMerchant(db: Executor, row: Insertable<MerchantsTable>) {
  return db.insertInto('merchants').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertStore(db: Executor, row: Insertable<StoresTable>) {
  return db.insertInto('stores').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findMerchant(db: Executor, merchantId: string) {
  return db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirst();
}

export async function listStores(db: Executor, merchantId: string) {
  return db
    .selectFrom('stores')
    .select(['id', 'name', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .orderBy('id')
    .execute();
}

export async function findStore(db: Executor, merchantId: string, storeId: string) {
  return db
    .selectFrom('stores')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', storeId)
    .executeTakeFirst();
}

export async function countMerchants(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findMerchantSettings(db: Executor, merchantId: string) {
  return db.selectFrom('merchants').select(['require_mfa']).where('id', '=', merchantId).executeTakeFirst();
}

export async function setRequireMfa(db: Executor, merchantId: string, requireMfa: boolean): Promise<void> {
  await db.updateTable('merchants').set({ require_mfa: requireMfa }).where('id', '=', merchantId).execute();
}
