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
import { eachEntry, insertEntry, listEntries, type EntryRow, type ListFilter } from './audit.repository.ts';

export interface Actor {
  type: 'user' | 'app' | 'system';
  id: string;
}

/** Who acts, for which merchant and mode, and the request it came in on. */
export interface AuditContext {
  merchantId: string;
  mode: Mode;
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

export type EntityType =
  'api_key' | 'developer_app' | 'oauth_grant' | 'webhook' | 'webhook_delivery' | 'audit_log' | 'event';

export interface AuditEntry {
  action: string;
  entityType: EntityType;
  entityId: string;
  /** The action's own fields: ids, names, scopes. Never a secret. */
  fields?: Record<string, unknown>;
}

export function systemContext(merchantId: string, mode: Mode, requestId: string | null = null): AuditContext {
  return { merchantId, mode, actor: { type: 'system', id: 'svc' }, ip: null, userAgent: null, requestId };
}

/** Who acts and from where, without the tenant: for a statement that finds the tenant as it runs. */
export type AuditActor = Omit<AuditContext, 'merchantId' | 'mode'>;

function metadataOf(who: AuditActor, fields: Record<string, unknown> | undefined): string {
  const metadata = JSON.stringify({
    actor: who.actor,
    ip: who.ip,
    user_agent: who.userAgent === null ? null : redactSecrets(who.userAgent),
    request_id: who.requestId,
    ...fields,
  });
  if (looksLikeSecret(metadata)) {
    throw new AppError(
      'validation_failed',
      'The request holds something shaped like a secret credential; secrets do not belong there.',
    );
  }
  return metadata;
}

export async function writeAudit(trx: Executor, ctx: AuditContext, entry: AuditEntry): Promise<string> {
  const metadata = metadataOf(ctx, entry.fields);
  const now = new Date();
  const id = newId('log', now);
  await insertEntry(trx, {
    id,
    merchant_id: ctx.merchantId,
    mode: ctx.mode,
    action: entry.action,
    family: entry.action.split('.')[0]!,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    metadata,
    created_at: now,
  });
  return id;
}

/** An entry's id, time and metadata, made (and checked for secrets) before the statement that writes it. */
export interface PreparedEntry {
  id: string;
  createdAt: Date;
  metadata: string;
}

/**
 * For a statement that writes its entries itself (`entryCtes`), where the tenant and the entity come from
 * the rows it changes: the part of the entry known before it runs, under the same guard as `writeAudit`.
 */
export function prepareEntry(who: AuditActor, fields?: Record<string, unknown>): PreparedEntry {
  const metadata = metadataOf(who, fields);
  const createdAt = new Date();
  return { id: newId('log', createdAt), createdAt, metadata };
}

export async function listLogs(db: Executor, filter: ListFilter) {
  return listEntries(db, filter);
}

export type ExportFormat = 'csv' | 'jsonl';
export type ExportFilter = Omit<ListFilter, 'limit' | 'startingAfter' | 'merchantId' | 'mode'>;

/** One export reads at most this many entries; a longer history is exported by time range. */
export const EXPORT_MAX = 1_000_000;
const EXPORT_CHUNK = 1_000;
const CSV_COLUMNS = ['id', 'created_at', 'action', 'entity_type', 'entity_id', 'metadata'] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, and its quotes doubled. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

async function* exportLines(rows: AsyncIterable<EntryRow>, format: ExportFormat): AsyncGenerator<string> {
  if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\r\n`;
  let batch = '';
  let n = 0;
  for await (const row of rows) {
    const entry = { ...row, created_at: iso(row.created_at) };
    batch +=
      format === 'csv'
        ? `${CSV_COLUMNS.map((c) => csvField(entry[c])).join(',')}\r\n`
        : `${JSON.stringify(entry)}\n`;
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
 * still on record), then the entries are read a chunk at a time and written as they come.
 */
export async function exportLogs(
  ctx: Context,
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
  const rows = eachEntry(
    ctx.db,
    { ...filter, merchantId: audit.merchantId, mode: audit.mode },
    EXPORT_CHUNK,
    EXPORT_MAX,
  );
  return Readable.from(exportLines(rows, format));
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
