// Every delivery attempt of the merchant's endpoints, newest first (API.md section 12.2). The rows are the
// delivery module's, read by this module's statement (attempts.repository.ts); this use case turns the query's
// words into its filter and its rows into API objects.
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import type { AttemptOutcome } from '../delivery/index.ts';
import { listMerchantAttempts, type ListedAttempt } from './attempts.repository.ts';
import { EVENT_CATALOG, isEventType } from '../events/index.ts';

export interface AttemptsInput extends PageInput {
  readonly webhookId?: string | undefined;
  /** The query's comma lists, as given (the schema checked their words). */
  readonly eventType?: string | undefined;
  readonly outcome?: string | undefined;
  readonly statusClass?: string | undefined;
  readonly storeId?: string | undefined;
  readonly appId?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
}

const list = (raw: string | undefined) =>
  raw === undefined ? undefined : [...new Set(raw.split(',').map((s) => s.trim()))];

/** Types of the catalog, a family (`order.*`) standing for each of its types; anything else is refused. */
export function eventTypesOf(raw: string | undefined): string[] | undefined {
  const names = list(raw);
  if (names === undefined) return undefined;
  const types = new Set<string>();
  for (const name of names) {
    if (name.endsWith('.*')) {
      const family = `${name.slice(0, -1)}`;
      const members = EVENT_CATALOG.filter((e) => e.id.startsWith(family)).map((e) => e.id);
      if (members.length === 0) throw invalidType(`${name} names no family of the catalog`);
      for (const t of members) types.add(t);
    } else if (isEventType(name)) types.add(name);
    else throw invalidType(`${name} is not an event type of the catalog`);
  }
  return [...types];
}

function invalidType(issue: string): AppError {
  return new AppError('validation_failed', `event_type: ${issue}.`, {
    details: [{ field: 'event_type', issue }],
  });
}

function presentAttempt(a: ListedAttempt) {
  return {
    id: a.id,
    delivery_id: a.delivery_id,
    webhook_id: a.webhook_id,
    event_id: a.event_id,
    event_type: a.event_type,
    store_id: a.store_id,
    app_id: a.app_id,
    attempt: a.number,
    outcome: a.outcome,
    response_status: a.response_status,
    duration_ms: a.duration_ms,
    created_at: iso(a.started_at),
  };
}

export async function listAttempts(ctx: Context, scope: Scope, input: AttemptsInput) {
  const { limit, startingAfter } = input;
  const page = await listMerchantAttempts(
    ctx.reads.readsFor(scope.merchantId), // a read that tolerates lag (API.md 12.1)
    scope,
    {
      webhookId: input.webhookId,
      eventTypes: eventTypesOf(input.eventType),
      outcomes: list(input.outcome) as AttemptOutcome[] | undefined,
      statusClasses: list(input.statusClass)?.map((c) => Number(c[0])),
      storeId: input.storeId,
      appId: input.appId,
      since: input.since,
      until: input.until,
    },
    { limit, startingAfter },
  );
  return mapPage(page, presentAttempt);
}
