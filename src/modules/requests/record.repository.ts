// Writing the request log: a batch of entries and their day counters in one transaction. On PostgreSQL the
// entries go by COPY on the module's own connection (the measured comparison with a multi-row INSERT is in
// docs/decisions/0100-request-log-buffer-holds-copy-text.md), as the COPY text the recorder's buffer holds; on PGlite, which has no
// COPY from a client stream, the same text by COPY from its `/dev/blob` device. A batch whose day has no
// partition yet makes it and is written again, once.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { CompiledQuery, sql } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Executor } from '../../db/database.ts';
import { redactSecrets } from '../../lib/credentials.ts';
import { counterKeys, dayOf, errorCodeOf, type RequestEntry } from './request-entry.ts';

/** Where batches go: the module's pg pool (COPY), or the service's database (PGlite). */
export type WriteTarget = { readonly pool: pg.Pool } | { readonly db: Executor };

// The columns in the order of every line of COPY text.
const COLUMNS = [
  'created_at',
  'merchant_id',
  'mode',
  'request_id',
  'method',
  'path',
  'route',
  'status',
  'error_code',
  'duration_ms',
  'credential_type',
  'credential_id',
  'credential_last4',
  'ip',
  'user_agent',
  'idempotency_key',
  'idempotent_replayed',
  'error',
  'app_id',
  'store_id',
  'for_owner',
  'body_fields',
] as const;
const NAMES = COLUMNS.join(', ');

/** Anything shaped like a credential cleared; the common case, text without `svc_` or `whsec_`, is left as it is. */
const clean = (text: string) =>
  text.includes('svc_') || text.includes('whsec_') ? redactSecrets(text) : text;

// COPY's text format: a tab between columns, \N for null, and backslash escapes for the characters it
// reserves. NUL cannot be stored in text at all and is dropped (a request carrying one was refused anyway).
const RESERVED = /[\\\t\n\r\0]/;
const RESERVED_ALL = /[\\\t\n\r\0]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '' };

function field(v: string | null): string {
  if (v === null) return '\\N';
  return RESERVED.test(v) ? v.replace(RESERVED_ALL, (c) => ESCAPES[c]!) : v;
}

/** The entries of a batch that bump the same counters, and the first of them. */
export interface CounterGroup {
  readonly key: string;
  readonly entry: RequestEntry;
  readonly day: string;
  readonly errorCode: string | null;
  n: number;
}

/** A batch as the recorder's buffer fills it: COPY text, and its counters by group. */
export interface Batch {
  /** The COPY text, in `text[0, bytes)`. */
  readonly text: Buffer;
  bytes: number;
  size: number;
  readonly days: Set<string>;
  readonly groups: Map<string, CounterGroup>;
}

/**
 * An entry as its line of COPY text, in COLUMNS' order, and the counter group it belongs to. What the
 * client chose (path, user agent, idempotency key) and the error body are cleared of anything shaped like a
 * credential here: never a credential in clear.
 */
export function copyLine(e: RequestEntry): { line: string; day: string; group: CounterGroup } {
  const error = e.error === null ? null : clean(e.error);
  const errorCode = errorCodeOf(error);
  const createdAt = new Date(e.createdAt).toISOString();
  const day = createdAt.slice(0, 10);
  const key = `${day} ${e.merchantId} ${e.mode} ${e.status} ${e.method} ${e.credentialId} ${errorCode} ${e.forOwner} ${e.appId} ${e.storeId}`;
  const line =
    `${createdAt}\t${field(e.merchantId)}\t${e.mode}\t${field(e.requestId)}\t${field(e.method)}\t` +
    `${field(clean(e.path))}\t${field(e.route)}\t${e.status}\t${field(errorCode)}\t${e.durationMs}\t` +
    `${e.credentialType}\t${field(e.credentialId)}\t${field(e.credentialLast4)}\t${field(e.ip)}\t` +
    `${field(e.userAgent === null ? null : clean(e.userAgent))}\t` +
    `${field(e.idempotencyKey === null ? null : clean(e.idempotencyKey))}\t${e.replayed}\t${field(error)}\t` +
    `${field(e.appId)}\t${field(e.storeId)}\t${e.forOwner}\t${field(fieldNames(e.bodyFields))}\n`;
  return { line, day, group: { key, entry: e, day, errorCode, n: 1 } };
}

/** The body's field names as a JSON array, each cleared like the path (a name may be anything a client sent). */
function fieldNames(names: readonly string[] | null | undefined): string | null {
  return names === null || names === undefined ? null : JSON.stringify(names.map(clean));
}

/** The day counters a batch bumps: every group's keys, its size added. */
function countsOf(batch: Batch): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { entry, day, errorCode, n } of batch.groups.values()) {
    for (const key of counterKeys(entry, errorCode)) {
      const k = `${day}\t${entry.merchantId}\t${entry.mode}\t${key}`;
      counts.set(k, (counts.get(k) ?? 0) + n);
    }
  }
  return counts;
}

const COPY_SQL = `copy request_logs (${NAMES}) from stdin`;
// PGlite has no COPY from a client stream; its own device takes the same text (pglite-dialect.ts).
const COPY_BLOB_SQL = `copy request_logs (${NAMES}) from '/dev/blob'`;

// Counter rows in one order in every writer (merchant, mode, key, day: the primary key's), so that two
// processes bumping overlapping counters queue rather than deadlock.
const COUNTS_SQL = `insert into request_log_counts (day, merchant_id, mode, key, n)
  select * from unnest($1::date[], $2::text[], $3::text[], $4::text[], $5::bigint[])
  order by 2, 3, 4, 1
  on conflict (merchant_id, mode, key, day) do update set n = request_log_counts.n + excluded.n`;

function countColumns(counts: Map<string, number>): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], []];
  for (const [k, n] of counts) {
    const [day, merchantId, mode, key] = k.split('\t') as [string, string, string, string];
    columns[0]!.push(day);
    columns[1]!.push(merchantId);
    columns[2]!.push(mode);
    columns[3]!.push(key);
    columns[4]!.push(n);
  }
  return columns;
}

async function copyBatch(pool: pg.Pool, text: Buffer, counts: Map<string, number>): Promise<void> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('begin');
    await pipeline(Readable.from([text]), client.query(copyFrom(COPY_SQL)));
    await client.query(COUNTS_SQL, countColumns(counts));
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch((e: unknown) => (broken = e));
    throw err;
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}

async function copyBlob(db: Executor, text: Buffer, counts: Map<string, number>): Promise<void> {
  // a copy of the text: the buffer is the recorder's again once the batch is written
  const blob = new Blob([new Uint8Array(text.buffer as ArrayBuffer, text.byteOffset, text.byteLength)]);
  await db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw(COPY_BLOB_SQL, [blob]));
    await trx.executeQuery(CompiledQuery.raw(COUNTS_SQL, countColumns(counts)));
  });
}

// SQLSTATE 23514: "no partition of relation found for row".
const NO_PARTITION = '23514';

/**
 * Writes a batch: the entries and their counters commit together, or neither does. A day without its
 * partition (the loop had not made it yet: a first start, a clock moved) is made, and the batch written again.
 */
export async function writeBatch(target: WriteTarget, db: Executor, batch: Batch): Promise<void> {
  const text = batch.text.subarray(0, batch.bytes);
  const counts = countsOf(batch);
  const write = () =>
    'pool' in target ? copyBatch(target.pool, text, counts) : copyBlob(target.db, text, counts);
  try {
    await write();
  } catch (err) {
    if ((err as { code?: string }).code !== NO_PARTITION) throw err;
    await makePartitions(db, [...batch.days]);
    await write();
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const PARTITION = /^request_logs_p(\d{4})(\d{2})(\d{2})$/;
const partitionOf = (day: string) => `request_logs_p${day.replaceAll('-', '')}`;
const nextDay = (day: string) => dayOf(Date.parse(`${day}T00:00:00Z`) + 86_400_000);

// A partition made at the same moment by another process: PostgreSQL reports the race as a duplicate table
// (42P07), a duplicate type (23505) or an overlap with the partition just made (42P17).
const MADE_ELSEWHERE: ReadonlySet<string> = new Set(['42P07', '23505', '42P17']);

/** Makes the day partitions that do not exist yet (days as YYYY-MM-DD, UTC). */
export async function makePartitions(db: Executor, days: readonly string[]): Promise<void> {
  for (const day of days) {
    if (!DAY.test(day)) throw new Error(`not a day: ${day}`);
    const ddl = `create table if not exists ${partitionOf(day)} partition of request_logs
      for values from ('${day} 00:00:00+00') to ('${nextDay(day)} 00:00:00+00')`;
    try {
      await sql.raw(ddl).execute(db);
    } catch (err) {
      if (!MADE_ELSEWHERE.has((err as { code?: string }).code ?? '')) throw err;
    }
  }
}

/** The days that have a partition, oldest first. */
export async function partitionDays(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent
     where p.relname = 'request_logs'`.execute(db);
  return rows
    .map((r) => PARTITION.exec(r.name))
    .filter((m) => m !== null)
    .map((m) => `${m[1]}-${m[2]}-${m[3]}`)
    .sort();
}

/**
 * Drops one day: its partition and its counters, together. The drop waits at most 2 s for its lock (a long
 * read of the log holds it): waiting longer would stall every batch queued behind it; the next run retries.
 */
export async function dropDay(db: Executor, day: string): Promise<void> {
  if (!DAY.test(day)) throw new Error(`not a day: ${day}`);
  await db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = '2s'`.execute(trx);
    await sql.raw(`drop table if exists ${partitionOf(day)}`).execute(trx);
    await trx
      .deleteFrom('request_log_counts')
      .where('day', '=', new Date(`${day}T00:00:00Z`))
      .execute();
  });
}
