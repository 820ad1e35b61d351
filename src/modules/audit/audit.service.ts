// The audit writer runs inside the caller's transaction: the entry commits with the change it records, or
// neither does. Metadata carries who did it and from where, and never a secret. What the client sends
// incidentally (its User-Agent) has secret-shaped runs redacted; a credential-shaped value among the action's
// own fields is refused, and the change with it: the schemas refuse such names and URLs before this point,
// so this is the last line, and it answers 400 (the input is the cause), never 500.
import { newId } from '../../lib/ids.ts';
import { AppError } from '../../lib/errors.ts';
import { looksLikeSecret, redactSecrets, type Mode } from '../../lib/credentials.ts';
import type { Executor } from '../../db/database.ts';
import { Readable } from 'node:stream';
import type { Context } from '../../context.ts';
import { iso } from '../../lib/time.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { chainTip, eachSealedEntry } from './chain.repository.ts';
import { eachOutsideEntry } from './outside-chain.repository.ts';
import type { Sealer } from './sealer.service.ts';
import {
  entriesOfRequest,
  insertEntries,
  listEntries,
  type EntryFilter,
  type EntryRow,
} from './audit.repository.ts';

// Who acts is known where the request is: the http/ toolkit defines it, every module reads it.
import type { AuditActor, AuditContext } from '../../http/request.ts';
export type { Actor, AuditActor, AuditContext } from '../../http/request.ts';

export type EntityType =
  | 'api_key'
  | 'developer_app'
  | 'oauth_grant'
  | 'webhook'
  | 'webhook_delivery'
  | 'audit_log'
  | 'event'
  | 'member'
  | 'merchant';

export interface AuditEntry {
  /** One of the catalogue's (actions.ts): test/audit/action-catalogue.test.ts reads the code for new ones. */
  action: string;
  entityType: EntityType;
  entityId: string;
  /** The action's own fields: ids, names, scopes. Never a secret. */
  fields?: Record<string, unknown>;
}

/** An entry made ready before its statement: id drawn, metadata built and checked. */
export interface PreparedAudit {
  readonly id: string;
  readonly createdAt: Date;
  readonly action: string;
  readonly entityType: EntityType;
  readonly metadata: string;
}

/** The service itself acting (a worker, a sweep), stamped by its clock. */
export function systemContext(
  ctx: Pick<Context, 'clock'>,
  merchantId: string,
  mode: Mode,
  requestId: string | null = null,
): AuditContext {
  const actor = { type: 'system', id: 'svc' } as const;
  return { merchantId, mode, actor, ip: null, userAgent: null, requestId, clock: ctx.clock };
}

/**
 * The metadata of an entry (who, from where, and the action's fields) with the guard of every writer: the
 * client's User-Agent has secret-shaped runs redacted, and a secret-shaped value anywhere else refuses the
 * entry, and the change with it (400, the input is the cause). For a statement that writes the entry itself
 * (`auditCtes`), where the merchant and the entity are learnt only as it runs.
 */
export function prepareAudit(who: AuditActor, entry: Omit<AuditEntry, 'entityId'>): PreparedAudit {
  const metadata = JSON.stringify({
    actor: who.actor,
    ip: who.ip,
    user_agent: who.userAgent === null ? null : redactSecrets(who.userAgent),
    request_id: who.requestId,
    ...entry.fields,
  });
  if (looksLikeSecret(metadata)) {
    throw new AppError(
      'validation_failed',
      'The request holds something shaped like a secret credential; secrets do not belong there.',
    );
  }
  const at = who.clock.now();
  return {
    id: newId('log', at),
    createdAt: new Date(at),
    action: entry.action,
    entityType: entry.entityType,
    metadata,
  };
}

export async function writeAudit(trx: Executor, ctx: AuditContext, entry: AuditEntry): Promise<string> {
  const prepared = prepareAudit(ctx, entry);
  await insertEntries(trx, [
    { ...prepared, merchantId: ctx.merchantId, mode: ctx.mode, entityId: entry.entityId },
  ]);
  return prepared.id;
}

export interface LogQuery extends PageInput, EntryFilter {}

export async function listLogs(ctx: Context, scope: Scope, input: LogQuery) {
  const { limit, startingAfter, ...filter } = input;
  const db = ctx.reads.readsFor(scope.merchantId); // a read that tolerates lag (API.md 12.1)
  return mapPage(await listEntries(db, scope, filter, { limit, startingAfter }), (r) => ({
    ...r,
    created_at: iso(r.created_at),
  }));
}

/** The entries a request wrote in this merchant's log (the request log's detail). */
export async function logsOfRequest(
  ctx: Context,
  scope: Scope,
  requestId: string,
  window: { from: Date; to: Date },
) {
  const db = ctx.reads.readsFor(scope.merchantId); // part of the request log's detail: tolerates lag
  return (await entriesOfRequest(db, scope, requestId, window)).map((r) => ({
    ...r,
    created_at: iso(r.created_at),
  }));
}

export type ExportFormat = 'csv' | 'jsonl';
export type ExportFilter = EntryFilter;

/**
 * One export reads at most this many entries of the chain, and as many outside it; a longer history is
 * exported by time range.
 */
export const EXPORT_MAX = 1_000_000;
const EXPORT_CHUNK = 1_000;
const CSV_COLUMNS = [
  'id',
  'created_at',
  'action',
  'entity_type',
  'entity_id',
  'metadata',
  'sequence',
  'hash',
  'prev_hash',
  'outside_chain',
] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, and its quotes doubled. */
const csvField = (value: string | number | boolean) =>
  typeof value === 'string' && /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : String(value);

const narrowedBy = (f: ExportFilter) =>
  [f.action, f.entityType, f.entityId, f.since, f.until].some((v) => v !== undefined);

interface ExportRow {
  row: EntryRow;
  /** Neither sealed nor queued: no writer of the service made it (migration 0120). */
  outside: boolean;
}

/** The chain from `tip` down, then the entries outside it, newest first. */
async function* exportRows(
  db: Executor,
  scope: Scope,
  filter: ExportFilter,
  tip: number,
): AsyncGenerator<ExportRow> {
  for await (const row of eachSealedEntry(db, scope, filter, tip, EXPORT_CHUNK, EXPORT_MAX))
    yield { row, outside: false };
  for await (const row of eachOutsideEntry(db, scope, filter, EXPORT_CHUNK, EXPORT_MAX))
    yield { row, outside: true };
}

/** An entry as the list shows it, with the export's marks where they apply (most lines have none). */
const jsonLine = (entry: object, outside: boolean, narrowed: boolean): object =>
  outside || narrowed
    ? { ...entry, ...(outside && { outside_chain: true }), ...(narrowed && { export_filtered: true }) }
    : entry;

async function* exportLines(
  rows: AsyncIterable<ExportRow>,
  format: ExportFormat,
  narrowed: boolean,
): AsyncGenerator<string> {
  if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\r\n`;
  let batch = '';
  let n = 0;
  for await (const { row, outside } of rows) {
    const entry = { ...row, created_at: iso(row.created_at) };
    batch +=
      format === 'csv'
        ? `${CSV_COLUMNS.map((c) => csvField(c === 'outside_chain' ? outside : (entry[c] ?? ''))).join(',')}\r\n`
        : `${JSON.stringify(jsonLine(entry, outside, narrowed))}\n`;
    // one write per hundred entries rather than per entry
    if (++n % 100 === 0) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

/**
 * The log as a file, streamed: the export is audited first (in its own transaction, so a failed stream is
 * still on record), what was committed before it is sealed, then the chain is read from its tip downwards
 * a chunk at a time and written as it comes. Entries sealed while it streams come after that tip and are
 * left to the next export, so the file is the chain as of its start: newest first, in sequence order,
 * without a gap. A filtered export holds only some of the chain's entries: its JSON lines say so
 * (`"export_filtered": true`), for `svc audit verify`, which can then prove each entry on its own only.
 * After the chain come the entries outside it (rows inserted by hand, which nothing will seal), flagged
 * `outside_chain`, so that the file holds every entry the list shows and verify names them.
 */
export async function exportLogs(
  ctx: Context,
  sealer: Sealer,
  audit: AuditContext,
  filter: ExportFilter,
  format: ExportFormat,
): Promise<Readable> {
  await ctx.db.transaction().execute((trx) =>
    writeAudit(trx, audit, {
      action: 'audit_log.exported',
      entityType: 'audit_log',
      entityId: audit.merchantId,
      fields: {
        format,
        action: filter.action ?? null,
        entity_type: filter.entityType ?? null,
        entity_id: filter.entityId ?? null,
        since: filter.since?.toISOString() ?? null,
        until: filter.until?.toISOString() ?? null,
      },
    }),
  );
  await sealer.catchUp();
  // The tip and the rows from one handle: on a replica (API.md 12.1), the chain as that replica holds it.
  const db = ctx.reads.readsFor(audit.merchantId);
  const tip = (await chainTip(db, audit))?.sequence ?? 0;
  return Readable.from(exportLines(exportRows(db, audit, filter, tip), format, narrowedBy(filter)));
}

/**
 * A security-relevant change at info level, after its commit, for operators who follow the log rather than the
 * audit trail: who did it, to what, and the request id to find the rest. Ids only, never a credential.
 */
export function logSecurityChange(
  ctx: Context,
  audit: AuditContext,
  message: string,
  fields: Record<string, string | null>,
): void {
  ctx.log.info(
    {
      request_id: audit.requestId,
      merchant_id: audit.merchantId,
      mode: audit.mode,
      actor: `${audit.actor.type}:${audit.actor.id}`,
      ...fields,
    },
    message,
  );
}
