// The sealed webhook secrets, across every merchant: for the start-up check that SVC_MASTER_KEY opens them all,
// and for the master-key rotation, which re-seals them in batches. System queries, not tenant reads.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { DB } from '../../schema.ts';

export interface SealedWebhook {
  id: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
}

/**
 * One stored secret sealed under none of `keyIds` (a `v2` naming another key), and one in the legacy `v1`
 * form, if any: the start-up check opens the latter to know whether a listed key fits. Stops at the first.
 */
export async function foreignSealed(
  db: Executor,
  keyIds: readonly string[],
): Promise<{ foreign: string | undefined; legacy: string | undefined }> {
  const known = keyIds.map((id) => `v2.${id}.%`);
  const { rows } = await sql<{ foreign: string | null; legacy: string | null }>`
    select
      (select s from webhooks w, lateral (values (w.secret_sealed), (w.previous_secret_sealed)) v(s)
       where s like 'v2.%' and not (s like any (${known}::text[])) limit 1) as foreign,
      (select s from webhooks w, lateral (values (w.secret_sealed), (w.previous_secret_sealed)) v(s)
       where s like 'v1.%' limit 1) as legacy
  `.execute(db);
  return { foreign: rows[0]?.foreign ?? undefined, legacy: rows[0]?.legacy ?? undefined };
}

/** A webhook with a secret, current or previous, not sealed under `keyId`. */
function notSealedUnder(keyId: string) {
  const current = `v2.${keyId}.%`;
  return (eb: ExpressionBuilder<DB, 'webhooks'>) =>
    eb.or([
      eb('secret_sealed', 'not like', current),
      eb.and([
        eb('previous_secret_sealed', 'is not', null),
        eb('previous_secret_sealed', 'not like', current),
      ]),
    ]);
}

/** The next webhooks (by id, after `after`) with a secret not sealed under `keyId`. */
export async function webhooksToReseal(
  db: Executor,
  keyId: string,
  after: string,
  limit: number,
): Promise<SealedWebhook[]> {
  return db
    .selectFrom('webhooks')
    .select(['id', 'secret_sealed', 'previous_secret_sealed'])
    .where('id', '>', after)
    .where(notSealedUnder(keyId))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Re-seals one webhook's secrets, unless they changed since they were read (a rotation by its merchant). */
export async function resealWebhook(
  db: Executor,
  before: SealedWebhook,
  after: SealedWebhook,
): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set({ secret_sealed: after.secret_sealed, previous_secret_sealed: after.previous_secret_sealed })
    .where('id', '=', before.id)
    .where('secret_sealed', '=', before.secret_sealed)
    .where((eb) =>
      before.previous_secret_sealed === null
        ? eb('previous_secret_sealed', 'is', null)
        : eb('previous_secret_sealed', '=', before.previous_secret_sealed),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** How many webhooks still hold a secret not sealed under `keyId` (progress of a rotation). */
export async function countToReseal(db: Executor, keyId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(notSealedUnder(keyId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
