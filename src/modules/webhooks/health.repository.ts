// Endpoint health (API.md section 10): the real deliveries of the last 24 hours of a page of webhooks, in one
// statement. Delivery ids begin with their creation time, so the window is a range of the (webhook_id, id)
// index per webhook: the cost follows the last day's traffic of the page, never the history.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { idFloor } from '../../lib/ids.ts';

export interface RecentDeliveries {
  deliveries: number;
  /** Deliveries with at least one attempt: the denominator of the success rate. */
  attempted: number;
  succeeded: number;
}

export async function countRecentDeliveries(
  db: Executor,
  webhookIds: string[],
  since: Date,
): Promise<Map<string, RecentDeliveries>> {
  if (webhookIds.length === 0) return new Map();
  const { rows } = await sql<RecentDeliveries & { webhook_id: string }>`
    select webhook_id, count(*)::int as deliveries,
           count(*) filter (where attempt_count > 0)::int as attempted,
           count(*) filter (where status = 'succeeded')::int as succeeded
    from deliveries
    where webhook_id = any (${webhookIds}::text[]) and id >= ${idFloor('dlv', since)} and not test
    group by webhook_id
  `.execute(db);
  return new Map(rows.map(({ webhook_id, ...counts }) => [webhook_id, counts]));
}
