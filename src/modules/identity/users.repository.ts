import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { UsersTable } from './identity.table.ts';

/** `undefined` when the email is taken (the unique index on lower(email) decides, race-free). */
export async function insertUser(db: Executor, row: Insertable<UsersTable>) {
  return db
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
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
