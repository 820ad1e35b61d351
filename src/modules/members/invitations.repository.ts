// Invitations: pending while neither accepted, withdrawn nor expired. Taking one is a single UPDATE that
// checks all three, so two acceptances of one token cannot both succeed.
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { InvitationsTable } from './members.table.ts';

export type InvitationRow = Selectable<InvitationsTable>;

export async function insertInvitation(db: Executor, row: Insertable<InvitationsTable>) {
  return db.insertInto('invitations').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The merchant's pending invitations, the newest first. */
export async function pendingInvitations(db: Executor, merchantId: string, now: Date) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .execute();
}

/** The merchant's pending invitation to this email (any case), if there is one. */
export async function findPendingByEmail(db: Executor, merchantId: string, email: string, now: Date) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb(eb.fn('lower', [eb.ref('email')]), '=', email.toLowerCase()))
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** The pending invitation with this token's hash, whichever merchant's it is. */
export async function findPendingByHash(db: Executor, tokenHash: Buffer, now: Date) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** The invitation with this token's hash whatever its state: what a link that no longer works says. */
export async function findByHash(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('invitations')
    .select(['id', 'replaced_by'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks a pending invitation replaced by a newer one: withdrawn, naming the newer one. */
export async function markReplaced(db: Executor, id: string, by: string, now: Date) {
  await db
    .updateTable('invitations')
    .set({ withdrawn_at: now, replaced_by: by })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .execute();
}

/** Marks a pending invitation accepted by `userId`; `undefined` when it is no longer pending. */
export async function takeInvitation(db: Executor, id: string, userId: string, now: Date) {
  return db
    .updateTable('invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Withdraws the merchant's pending invitations chosen by id or by email (a new invitation to an email
 * replaces the pending one); the withdrawn rows.
 */
export async function withdrawInvitations(
  db: Executor,
  merchantId: string,
  which: { id: string } | { email: string },
  now: Date,
) {
  let update = db
    .updateTable('invitations')
    .set({ withdrawn_at: now })
    .where('merchant_id', '=', merchantId)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .where('expires_at', '>', now);
  update =
    'id' in which
      ? update.where('id', '=', which.id)
      : update.where((eb) => eb(eb.fn('lower', [eb.ref('email')]), '=', which.email.toLowerCase()));
  return update.returningAll().execute();
}
