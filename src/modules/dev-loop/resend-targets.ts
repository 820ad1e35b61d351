// Where an event may be resent (API.md section 12.2): only to an endpoint that subscribes to its type and may
// receive it. The same rule decides what the dashboard's Resend menu offers (GET /events/{id}/resend-targets)
// and what POST /events/{id}/resend accepts, which answers 409 conflict with the reason otherwise.
import type { Executor } from '../../db/database.ts';
import type { Scope } from '../../lib/scope.ts';
import { deliveriesOfEvents } from '../delivery/index.ts';
import { listEndpoints, type EndpointSummary } from '../webhooks/index.ts';

/** Types that only an app's webhooks receive (API.md section 11.1): the app must erase the store's data. */
const APP_ONLY_TYPES: ReadonlySet<string> = new Set(['store.redact']);

/** The offers are read from the merchant's newest endpoints, up to this many. */
export const TARGETS_MAX = 500;

type Candidate = Pick<EndpointSummary, 'status' | 'events' | 'app_id'>;

/**
 * Why `webhook` may not take a resend of an event of `type`; null: it may. `installed`: the event reached this
 * app webhook through an installation before (its resend goes out for the same one).
 */
export function refusal(type: string, webhook: Candidate, installed: boolean): string | null {
  if (!webhook.events.includes(type)) return `This webhook does not subscribe to ${type}.`;
  if (webhook.app_id === null && APP_ONLY_TYPES.has(type))
    return `${type} goes to the app's webhooks only, never to the merchant's own.`;
  if (webhook.app_id !== null && !installed)
    return "This event never reached the app's webhook: no installation to resend it for.";
  if (webhook.status !== 'enabled') return 'This webhook is disabled: enable it before resending.';
  return null;
}

/** The app webhooks an event reached through an installation. */
export async function installedTargets(db: Executor, scope: Scope, eventId: string): Promise<Set<string>> {
  const deliveries = await deliveriesOfEvents(db, scope, [eventId]);
  return new Set(deliveries.filter((d) => d.grant_id !== null).map((d) => d.webhook_id));
}

/** The endpoints that may take a resend of the event, newest first. */
export async function resendTargets(db: Executor, scope: Scope, event: { id: string; type: string }) {
  const [endpoints, installed] = await Promise.all([
    listEndpoints(db, scope, TARGETS_MAX),
    installedTargets(db, scope, event.id),
  ]);
  return endpoints
    .filter((w) => refusal(event.type, w, installed.has(w.id)) === null)
    .map((w) => ({ webhook_id: w.id, url: w.url, description: w.description, app_id: w.app_id }));
}
