// Reading the request log (API.md section 11.6): a page of entries, and one entry with what its request
// caused: the audit entries it wrote and the deliveries of the events recorded during it.
import type { Context } from '../../context.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { logsOfRequest } from '../audit/index.ts';
import { deliveriesOfRequest } from '../dev-loop/index.ts';
import type { EntryFilter } from './request-entry.ts';
import { findEntry, listEntries, type EntryRow } from './requests.repository.ts';

// What a request wrote, it wrote while it ran; a second either side covers the clocks of two processes.
const SKEW_MS = 1000;
// The platform records the events of a call it handled through ingestion, with the call's request id, soon
// after answering it: a minute after the answer bounds the events read for one entry.
const EVENTS_AFTER_MS = 60_000;

function parsedError(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // kept as sent below
  }
  return { body: text };
}

function present(r: EntryRow) {
  return {
    id: r.request_id,
    created_at: iso(r.created_at),
    mode: r.mode,
    method: r.method,
    path: r.path,
    route: r.route,
    status: r.status,
    error_code: r.error_code,
    duration_ms: r.duration_ms,
    credential: { type: r.credential_type, id: r.credential_id, last4: r.credential_last4 },
    app_id: r.app_id,
    store_id: r.store_id,
    ip: r.ip,
    user_agent: r.user_agent,
    idempotency_key: r.idempotency_key,
    idempotent_replayed: r.idempotent_replayed,
    error: parsedError(r.error),
  };
}

export interface RequestQuery extends PageInput, EntryFilter {}

export async function listRequests(ctx: Context, scope: Scope, input: RequestQuery) {
  const { limit, startingAfter, ...filter } = input;
  const page = { limit, startingAfter };
  const db = ctx.reads.readsFor(scope.merchantId); // a read that tolerates lag (API.md 12.1)
  const after = page.startingAfter === undefined ? undefined : await findEntry(db, scope, page.startingAfter);
  if (page.startingAfter !== undefined && after === undefined) {
    throw invalid('starting_after', 'names no request of this log');
  }
  return mapPage(await listEntries(db, scope, filter, page, after), present);
}

export async function getRequest(ctx: Context, scope: Scope, requestId: string) {
  const entry = await findEntry(ctx.reads.readsFor(scope.merchantId), scope, requestId); // tolerates lag
  if (!entry) throw notFound('request in this log');
  const start = entry.created_at.getTime();
  const end = start + Math.ceil(entry.duration_ms);
  const [auditEntries, deliveries] = await Promise.all([
    logsOfRequest(ctx, scope, requestId, { from: new Date(start - SKEW_MS), to: new Date(end + SKEW_MS) }),
    deliveriesOfRequest(ctx, scope, requestId, {
      from: new Date(start - SKEW_MS),
      to: new Date(end + EVENTS_AFTER_MS),
    }),
  ]);
  return { ...present(entry), body_fields: entry.body_fields, audit_entries: auditEntries, deliveries };
}
