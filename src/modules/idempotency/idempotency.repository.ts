import { sql, type Selectable } from 'kysely';
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

/** One stored answer sealed under none of `keyIds`, and one in the legacy `v1` form (start-up key check). */
export async function foreignSealedAnswers(
  db: Executor,
  keyIds: readonly string[],
): Promise<{ foreign: string | undefined; legacy: string | undefined }> {
  const known = keyIds.map((id) => `v2.${id}.%`);
  const { rows } = await sql<{ foreign: string | null; legacy: string | null }>`
    select
      (select response_body from idempotency_keys
       where response_body like 'v2.%' and not (response_body like any (${known}::text[])) limit 1) as foreign,
      (select response_body from idempotency_keys where response_body like 'v1.%' limit 1) as legacy
  `.execute(db);
  return { foreign: rows[0]?.foreign ?? undefined, legacy: rows[0]?.legacy ?? undefined };
}

export interface SealedAnswer extends KeyRef {
  body: string;
}

/** The next stored answers not sealed under `keyId` (a rotation re-seals them, so no cursor is needed). */
export async function answersToReseal(db: Executor, keyId: string, limit: number): Promise<SealedAnswer[]> {
  const rows = await db
    .selectFrom('idempotency_keys')
    .select(['merchant_id', 'mode', 'principal', 'key', 'response_body'])
    .where('response_body', 'is not', null)
    .where('response_body', 'not like', `v2.${keyId}.%`)
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    mode: r.mode,
    principal: r.principal,
    key: r.key,
    body: r.response_body!,
  }));
}

/** Replaces one sealed answer, unless it changed since it was read. */
export async function resealAnswer(db: Executor, answer: SealedAnswer, body: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_body: body })
    .where('merchant_id', '=', answer.merchantId)
    .where('mode', '=', answer.mode)
    .where('principal', '=', answer.principal)
    .where('key', '=', answer.key)
    .where('response_body', '=', answer.body)
    .execute();
}
