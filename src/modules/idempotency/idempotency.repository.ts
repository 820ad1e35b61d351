import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { IdempotencyKeysTable } from './idempotency.table.ts';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export interface KeyRef {
  merchantId: string;
  mode: Mode;
  principal: string;
  key: string;
}

/** The key's primary key columns: the values of its row, and the condition that finds it. */
const scoped = (ref: KeyRef) => ({
  merchant_id: ref.merchantId,
  mode: ref.mode,
  principal: ref.principal,
  key: ref.key,
});

/** Inserts the key as running; `false` when it already exists (the primary key decides, race-free). */
export async function insertRunning(
  db: Executor,
  ref: KeyRef,
  fields: { fingerprint: Buffer; lockedUntil: Date; expiresAt: Date },
): Promise<boolean> {
  const row = await db
    .insertInto('idempotency_keys')
    .values({
      ...scoped(ref),
      fingerprint: fields.fingerprint,
      locked_until: fields.lockedUntil,
      expires_at: fields.expiresAt,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findKey(db: Executor, ref: KeyRef): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where((eb) => eb.and(scoped(ref)))
    .executeTakeFirst();
}

/**
 * Takes over a key whose entry expired, or whose first request never finished (its process died): one
 * conditional UPDATE, so of two requests racing for it only one wins.
 */
export async function takeOver(
  db: Executor,
  ref: KeyRef,
  fields: { fingerprint: Buffer; lockedUntil: Date; expiresAt: Date },
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('idempotency_keys')
    .set({
      fingerprint: fields.fingerprint,
      response_status: null,
      response_type: null,
      response_body: null,
      locked_until: fields.lockedUntil,
      expires_at: fields.expiresAt,
      created_at: now,
    })
    .where((eb) => eb.and(scoped(ref)))
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb.and([eb('response_status', 'is', null), eb('locked_until', '<=', now)]),
      ]),
    )
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

export async function storeAnswer(
  db: Executor,
  ref: KeyRef,
  answer: { status: number; type: string | null; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: answer.status, response_type: answer.type, response_body: answer.body })
    .where((eb) => eb.and(scoped(ref)))
    .execute();
}

export async function deleteKey(db: Executor, ref: KeyRef): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where((eb) => eb.and(scoped(ref)))
    .execute();
}

export async function deleteExpired(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
