// The merchant's endpoints in a mode, all at once: what a resend may be offered to (API.md section 12.2).
// Listeners are not endpoints (a `svc listen` stream sends them its events itself); deleted webhooks are gone.
import type { Executor } from '../../db/database.ts';
import type { Scope } from '../../lib/scope.ts';
import type { WebhookRow } from './webhooks.repository.ts';

export type EndpointSummary = Pick<
  WebhookRow,
  'id' | 'url' | 'description' | 'app_id' | 'status' | 'events' | 'disabled_reason'
>;

/** At most `limit`, newest first: one range of webhooks_page_idx. */
export async function listEndpoints(db: Executor, scope: Scope, limit: number): Promise<EndpointSummary[]> {
  return db
    .selectFrom('webhooks')
    .select(['id', 'url', 'description', 'app_id', 'status', 'events', 'disabled_reason'])
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('deleted_at', 'is', null)
    .where('kind', '=', 'endpoint')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
