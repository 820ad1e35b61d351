// Endpoint health (API.md section 10): the real deliveries of the last 24 hours of each webhook read, in the
// same statement as the webhook. Delivery ids begin with their creation time, so the window is one range of
// the (webhook_id, id) index per webhook, joined laterally: the cost follows the last day's traffic of the
// webhooks read, never the history. (A `webhook_id = any (...)` filter instead let the planner choose a
// sequential scan that tested every row against the whole page of ids.)
import { sql, type ExpressionBuilder } from 'kysely';
import { idFloor } from '../../lib/ids.ts';
import type { DB } from '../../schema.ts';

export interface RecentDeliveries {
  deliveries: number;
  /** Deliveries with at least one attempt: the denominator of the success rate. */
  attempted: number;
  succeeded: number;
}

/** For `crossJoinLateral` on `webhooks`: the counts of the row's real deliveries created since `since`. */
export function recentDeliveries(since: Date) {
  return (eb: ExpressionBuilder<DB, 'webhooks'>) =>
    eb
      .selectFrom('deliveries')
      .select([
        sql<number>`count(*)::int`.as('deliveries'),
        sql<number>`(count(*) filter (where attempt_count > 0))::int`.as('attempted'),
        sql<number>`(count(*) filter (where status = 'succeeded'))::int`.as('succeeded'),
      ])
      .whereRef('deliveries.webhook_id', '=', 'webhooks.id')
      .where('deliveries.id', '>=', idFloor('dlv', since))
      .where('deliveries.test', '=', false)
      .as('recent');
}
