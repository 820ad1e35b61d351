// The deliveries a replay queues (docs/decisions/0146-replays-behind-live-deliveries.md), as one step of the
// replays module's batch statement (advanceReplay in src/modules/replays/replays.repository.ts), which stays one
// round trip: its cursor and counts move in the statement that inserts what they count, so a restart continues
// from the last commit and nothing is queued twice. The SQL that writes the deliveries table stays here, with its
// owner, as the webhooks module's `recordHealth` is a step of this module's outcome statement.
import { sql, type RawBuilder } from 'kysely';

/**
 * The `ins` step: a delivery for each walked row the batch judged `ok`, parked as 'replay' (the claims take
 * them after every due one), with no due time. The statement defines `w` (the webhook: id, merchant_id, mode)
 * and `judged` (event_id, type, grant_id, store_id, its place `n` in the walk, ok). Ids: `prefix` (the time part
 * of a delivery id made now, src/lib/ids.ts), the row's place in the walk and 72 random bits, so they sort in
 * walk order. Returns each inserted id.
 */
export function queueReplayed(prefix: string, now: Date): RawBuilder<unknown> {
  return sql`ins as (
      insert into deliveries as d
        (id, webhook_id, merchant_id, mode, event_id, event_type, grant_id, store_id, next_attempt_at, parked,
         created_at, updated_at)
      select ${prefix} || lpad(j.n::text, 6, '0') || substr(md5(gen_random_uuid()::text), 1, 18), w.id,
             w.merchant_id, w.mode, j.event_id, j.type, j.grant_id, j.store_id, null, 'replay',
             ${now}::timestamptz, ${now}::timestamptz
      from judged j cross join w
      where j.ok
      returning d.id
    )`;
}
