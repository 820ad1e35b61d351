import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { MerchantsTable, StoresTable, UsersTable } from './merchants.table.ts';

export async function insertMerchant(db: Executor, row: Insertable<MerchantsTable>) {
  return db.insertInto('merchants').values(row).returningAll().executeTakeFirstOrThrow();
}

/** `undefined` when the email is taken (the unique index on lower(email) decides, race-free). */
export async function insertUser(db: Executor, row: Insertable<UsersTable>) {
  return db
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function insertStore(db: Executor, row: Insertable<StoresTable>) {
  return db.insertInto('stores').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Executor, email: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', [eb.ref('email')]), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export async function findUserById(db: Executor, userId: string) {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
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
