// Memberships: a user in a merchant, with its role. The last-owner rule reads the owners under a row lock, so
// two owners demoting or removing each other at once cannot leave a merchant without one.
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Role } from '../../http/roles.ts';
import type { MembershipsTable } from './identity.table.ts';

/** `undefined` when the user is already a member (the primary key decides, race-free). */
export async function insertMembership(db: Executor, row: Insertable<MembershipsTable>) {
  return db
    .insertInto('memberships')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

const memberColumns = [
  'u.id',
  'u.email',
  'u.name',
  'u.created_at',
  'm.merchant_id',
  'm.role',
  'm.joined_at',
  'm.last_active_at',
] as const;

/** A member of the merchant: the user and its membership. */
export async function findMember(db: Executor, merchantId: string, userId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(memberColumns)
    .where('m.merchant_id', '=', merchantId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}

export type MemberRow = NonNullable<Awaited<ReturnType<typeof findMember>>>;

/** The members of the merchant without a second factor (`users.has_factor`), the longest-standing first. */
export async function listMembersWithoutFactor(db: Executor, merchantId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email'])
    .where('m.merchant_id', '=', merchantId)
    .where('u.has_factor', '=', false)
    .orderBy('m.joined_at')
    .orderBy('u.id')
    .execute();
}

/** Every member of the merchant, the longest-standing first. */
export async function listMembers(db: Executor, merchantId: string): Promise<MemberRow[]> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(memberColumns)
    .where('m.merchant_id', '=', merchantId)
    .orderBy('m.joined_at')
    .orderBy('u.id')
    .execute();
}

/** The merchants a user belongs to, with its role in each, by name. */
export async function membershipsOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('merchants as mer', 'mer.id', 'm.merchant_id')
    .select(['mer.id', 'mer.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('mer.name')
    .orderBy('mer.id')
    .execute();
}

/** The membership a sign-in opens: the one used last, else the one joined last. */
export async function lastMembership(db: Executor, userId: string) {
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy(sql`last_active_at desc nulls last`)
    .orderBy('joined_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The merchant's owners, each row locked until the transaction ends. */
export async function lockOwners(db: Executor, merchantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('merchant_id', '=', merchantId)
    .where('role', '=', 'owner')
    .forUpdate()
    .execute();
  return rows.map((r) => r.user_id);
}

export async function updateRole(db: Executor, merchantId: string, userId: string, role: Role) {
  await db
    .updateTable('memberships')
    .set({ role })
    .where('merchant_id', '=', merchantId)
    .where('user_id', '=', userId)
    .execute();
}

/** Deletes the membership and, by the foreign key's cascade, its sessions; `true` when there was one. */
export async function deleteMembership(db: Executor, merchantId: string, userId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('memberships')
    .where('merchant_id', '=', merchantId)
    .where('user_id', '=', userId)
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A sign-in or a switch opened the membership at `at`. */
export async function touchMembership(db: Executor, merchantId: string, userId: string, at: Date) {
  await db
    .updateTable('memberships')
    .set({ last_active_at: at })
    .where('merchant_id', '=', merchantId)
    .where('user_id', '=', userId)
    .execute();
}
