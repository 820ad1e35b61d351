// Disabling webhooks that fail: at once after a 410 Gone, or after five days in which every attempt failed.
// The delivery module decides when (its outcomes, delivery/attempt.ts) and calls this in its transaction.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';

export const FAILING_DAYS = 5;

export interface DisabledWebhook {
  id: string;
  merchant_id: string;
  mode: Mode;
  disabled_reason: string;
}

/** Among `ids`, disables the enabled webhooks that answered 410 (`gone`) or fail since five days at `now`. */
export async function disableFailing(
  db: Executor,
  failing: string[],
  gone: string[],
  now: Date,
): Promise<DisabledWebhook[]> {
  if (failing.length === 0 && gone.length === 0) return [];
  const goneIds = JSON.stringify(gone);
  const failingIds = JSON.stringify(failing);
  const { rows } = await sql<DisabledWebhook>`
    update webhooks w
    set status = 'disabled',
        disabled_reason = case when w.id in (select jsonb_array_elements_text(${goneIds}::jsonb))
          then 'The endpoint answered 410 Gone.'
          else 'Every delivery failed for ${sql.raw(String(FAILING_DAYS))} days in a row.' end,
        updated_at = ${now}::timestamptz
    where w.status = 'enabled' and w.deleted_at is null
      and (w.id in (select jsonb_array_elements_text(${goneIds}::jsonb))
           or (w.id in (select jsonb_array_elements_text(${failingIds}::jsonb)) and w.failing_since <= ${now}::timestamptz - interval '${sql.raw(String(FAILING_DAYS))} days'))
    returning w.id, w.merchant_id, w.mode, w.disabled_reason
  `.execute(db);
  return rows;
}
