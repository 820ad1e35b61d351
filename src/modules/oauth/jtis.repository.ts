// JWT ids used once (migration 0153): a client assertion's `jti` (RFC 7523 3) and a DPoP proof's (RFC 9449
// 11.1), across every process. One autocommitted INSERT is both the check and the record: for an id already
// seen and not yet expired it writes and returns nothing, however many processes race with it. A row past
// its expiry that the purge has not reached yet no longer counts: its JWT was refused by then anyway.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** True the first time (issuer, jti) is seen before `expiresAt`; false for a replay. */
export async function useJti(
  db: Executor,
  seen: { issuer: string; jti: string; expiresAt: Date; now: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('oauth_jtis')
    .values({ issuer: seen.issuer, jti: seen.jti, expires_at: seen.expiresAt })
    .onConflict((oc) =>
      oc
        .columns(['issuer', 'jti'])
        .doUpdateSet({ expires_at: sql<Date>`excluded.expires_at` })
        .where('oauth_jtis.expires_at', '<=', seen.now),
    )
    .returning('jti')
    .executeTakeFirst();
  return inserted !== undefined;
}
