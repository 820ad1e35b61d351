// A user's second factors (API.md section 11.3): its TOTP secret (sealed), recovery codes (SHA-256), passkeys,
// the WebAuthn challenges in flight, a session's step-up time, and a merchant's requirement of a factor.
// `users.has_factor` is kept true exactly while the user has a confirmed TOTP or a passkey: `syncHasFactor`
// recomputes it in the statement's transaction after every change of either.
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { PasskeysTable } from './identity.table.ts';

export async function findFactors(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'totp_sealed', 'totp_pending_sealed', 'totp_last_step', 'has_factor'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function setPendingTotp(db: Executor, userId: string, sealed: string): Promise<void> {
  await db.updateTable('users').set({ totp_pending_sealed: sealed }).where('id', '=', userId).execute();
}

/** The pending secret becomes the user's TOTP, its confirming step the last used; false if none was pending. */
export async function confirmTotp(db: Executor, userId: string, pending: string, step: number) {
  const row = await db
    .updateTable('users')
    .set({ totp_sealed: pending, totp_pending_sealed: null, totp_last_step: step })
    .where('id', '=', userId)
    .where('totp_pending_sealed', '=', pending)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function clearTotp(db: Executor, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_sealed: null, totp_pending_sealed: null, totp_last_step: null })
    .where('id', '=', userId)
    .execute();
}

/**
 * Takes TOTP step `step` for the user if it is later than the last one taken: false when it was used (a code
 * is accepted once, API.md section 11.3), whichever process saw it first.
 */
export async function takeTotpStep(db: Executor, userId: string, step: number): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function syncHasFactor(db: Executor, userId: string): Promise<void> {
  await sql`
    update users set has_factor = (
      totp_sealed is not null or exists (select 1 from passkeys where passkeys.user_id = users.id)
    ) where id = ${userId}`.execute(db);
}

export async function replaceRecoveryCodes(db: Executor, userId: string, hashes: Buffer[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
    .execute();
}

export async function deleteRecoveryCodes(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/** Uses one of the user's codes: true when it was unused, and is used now. */
export async function useRecoveryCode(
  db: Executor,
  userId: string,
  hash: Buffer,
  at: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countUnusedRecoveryCodes(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPasskey(db: Executor, row: Insertable<PasskeysTable>): Promise<void> {
  await db.insertInto('passkeys').values(row).execute();
}

export async function passkeysOfUser(db: Executor, userId: string) {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function findPasskeyByCredential(db: Executor, credentialId: string) {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

export async function deletePasskey(db: Executor, userId: string, id: string) {
  return db
    .deleteFrom('passkeys')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returning(['id', 'name'])
    .executeTakeFirst();
}

/** The authenticator's new signature counter, and the use. */
export async function recordPasskeyUse(db: Executor, id: string, counter: number, at: Date): Promise<void> {
  await db.updateTable('passkeys').set({ counter, last_used_at: at }).where('id', '=', id).execute();
}

export async function deleteFactorsOf(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('passkeys').where('user_id', '=', userId).execute();
  await deleteRecoveryCodes(db, userId);
  await clearTotp(db, userId);
  await syncHasFactor(db, userId);
}

export async function insertChallenge(
  db: Executor,
  row: { challenge: string; user_id: string | null; purpose: 'register' | 'assert'; expires_at: Date },
): Promise<void> {
  await db.insertInto('webauthn_challenges').values(row).execute();
}

/** Takes a live challenge once: its row, or undefined when unknown, expired or already answered. */
export async function takeChallenge(
  db: Executor,
  challenge: string,
  purpose: 'register' | 'assert',
  now: Date,
) {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
  return db
    .deleteFrom('webauthn_challenges')
    .where('challenge', '=', challenge)
    .where('purpose', '=', purpose)
    .returning(['user_id'])
    .executeTakeFirst();
}

export async function markSteppedUp(db: Executor, sessionId: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ stepped_up_at: at }).where('id', '=', sessionId).execute();
}
