// Sessions: one per sign-in, of one membership. The check of every merchant-interface call reads one row by
// its token's SHA-256, with its membership (the role) and user (the email, for the audit log): one index lookup
// and three primary-key lookups (the merchant, for its second-factor requirement), and a removed member's
// sessions are gone with its membership.
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { recordLastUses } from '../../db/last-uses.ts';
import type { SessionsTable } from './identity.table.ts';

export async function insertSession(db: Executor, row: Insertable<SessionsTable>) {
  await db.insertInto('sessions').values(row).execute();
}

/**
 * The session and what the check needs beside it, each as a scalar subquery of one table (null when its row is
 * gone): planned as a four-table join, the statement cost 0.20 ms of PostgreSQL planning on every call of the
 * merchant interface, against 0.04 ms this way (0.014 and 0.006 ms executing).
 */
export async function findLiveSession(db: Executor, tokenHash: Buffer, now: Date) {
  return db
    .selectFrom('sessions as s')
    .select((eb) => [
      's.id',
      's.user_id',
      's.merchant_id',
      's.token_hash',
      's.stepped_up_at',
      eb
        .selectFrom('memberships as m')
        .select('m.role')
        .whereRef('m.merchant_id', '=', 's.merchant_id')
        .whereRef('m.user_id', '=', 's.user_id')
        .as('role'),
      eb.selectFrom('users as u').select('u.email').whereRef('u.id', '=', 's.user_id').as('email'),
      eb.selectFrom('users as u').select('u.has_factor').whereRef('u.id', '=', 's.user_id').as('has_factor'),
      eb
        .selectFrom('merchants as mer')
        .select('mer.require_mfa')
        .whereRef('mer.id', '=', 's.merchant_id')
        .as('require_mfa'),
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

/** The user's live sessions, in every merchant, the newest first. */
export async function sessionsOfUser(db: Executor, userId: string, now: Date) {
  return db
    .selectFrom('sessions')
    .select(['id', 'merchant_id', 'ip', 'user_agent', 'created_at', 'last_used_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .execute();
}

export async function deleteSession(db: Executor, merchantId: string, sessionId: string) {
  await db.deleteFrom('sessions').where('merchant_id', '=', merchantId).where('id', '=', sessionId).execute();
}

/** One of the user's sessions, whichever merchant it opens; `true` when there was one. */
export async function deleteUserSession(db: Executor, userId: string, sessionId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('id', '=', sessionId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Every session of the user, in every merchant. */
export async function deleteUserSessions(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export async function deleteExpiredSessions(db: Executor, now: Date) {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}

/**
 * A batch of session uses (epoch ms, by session id): each session's `last_used_at`, then its membership's
 * `last_active_at`, neither ever moved backwards. Grouped by membership first, so that two sessions of one
 * member in a batch give it the later time (an UPDATE ... FROM with two matching rows picks either).
 */
export async function recordSessionUses(db: Executor, uses: ReadonlyMap<string, number>): Promise<void> {
  await recordLastUses(db, 'sessions', uses);
  const ids = [...uses.keys()];
  await sql`
    update memberships as m set last_active_at = greatest(m.last_active_at, s.at)
    from (
      select merchant_id, user_id, max(last_used_at) as at from sessions
      where id in (${sql.join(ids)}) group by merchant_id, user_id
    ) as s
    where m.merchant_id = s.merchant_id and m.user_id = s.user_id`.execute(db);
}
