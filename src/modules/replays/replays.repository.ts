// Replays by filter (API.md section 12.2, docs/decisions/0146-replays-behind-live-deliveries.md): which past
// deliveries or events a replay sends again, its row, and the statement that advances it by a batch, whose
// insert of the deliveries it queues is the delivery module's step (`queueReplayed`).
// One text says what a replay walks (`walked`), over a row `r` of webhook_replays' columns: the preview counts
// it over a row of values, the batch statement takes it from the locked replay row.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { pageById } from '../../db/paging.ts';
import type { Mode } from '../../lib/credentials.ts';
import { idFloor } from '../../lib/ids.ts';
import type { Page, PageInput } from '../../lib/scope.ts';
import { queueReplayed } from '../delivery/index.ts';
import type { ReplayEventStatus, WebhookReplaysTable } from './replays.table.ts';

export type ReplayRow = Selectable<WebhookReplaysTable>;

/** What a replay asks for, the webhook found within the caller's merchant and mode. */
export interface ReplaySpec {
  merchantId: string;
  mode: Mode;
  webhookId: string;
  /** An app webhook's replay walks its deliveries: the events of many merchants, each with its installation. */
  appWebhook: boolean;
  eventStatus: ReplayEventStatus;
  since: Date;
  until: Date;
  eventTypes: readonly string[] | null;
  storeId: string | null;
}

// store.redact is recorded for the app of one installation only (`appOnly`, oauth/installations.service.ts): a
// merchant's own webhook never should have received one.
const APP_ONLY_TYPES = ['store.redact'];

/**
 * The rows a replay walks after its cursor, in cursor order, with `tail` (an ORDER BY and LIMIT, or nothing to
 * count). `deliveries`: the webhook's real deliveries in the window, the last one of each event only (a later
 * resend or replay is the event's latest), those whose last attempt failed unless every one is asked for.
 * `events`: the merchant's events in the window, by sequence, up to the last one recorded when it began.
 */
function walked(tail: (order: RawBuilder<unknown>) => RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`src as (
      select d.event_id, d.event_type as type, d.grant_id, d.store_id, d.id as after_id,
             null::bigint as after_sequence
      from r cross join lateral (
        select d.event_id, d.event_type, d.grant_id, d.store_id, d.id from deliveries d
        where r.source = 'deliveries' and d.webhook_id = r.webhook_id and d.id > r.after_id
          and d.created_at >= r.since and d.created_at < r.until and not d.test
          and (r.event_types is null or d.event_type = any (r.event_types))
          and (r.store_id is null or d.store_id = r.store_id)
          and (r.event_status = 'all' or d.status = 'failed' or (d.status = 'pending' and d.attempt_count > 0))
          and not exists (select 1 from deliveries l
                          where l.event_id = d.event_id and l.webhook_id = d.webhook_id and not l.test
                            and l.id > d.id)
        ${tail(sql`order by d.id`)}
      ) d
      union all
      select e.id, e.type, null, null, null, e.sequence
      from r cross join lateral (
        select e.id, e.type, e.sequence from events e
        where r.source = 'events' and e.merchant_id = r.merchant_id and e.mode = r.mode
          and e.sequence > r.after_sequence and e.sequence <= r.end_sequence
          and e.created_at >= r.since and e.created_at < r.until
          and e.type <> all (${sql.val(APP_ONLY_TYPES)}::text[])
          and (r.event_types is null or e.type = any (r.event_types))
          and (r.store_id is null or e.payload::jsonb #>> '{data,store_id}' = r.store_id)
        ${tail(sql`order by e.sequence`)}
      ) e
    )`;
}

/** `status: all` of a merchant's own webhook walks its events (what it should have received); else deliveries. */
const sourceOf = (spec: ReplaySpec) =>
  spec.eventStatus === 'all' && !spec.appWebhook ? ('events' as const) : ('deliveries' as const);

/**
 * Where the cursor starts and the walk ends: the first delivery id of the window; for events, the last
 * sequence before the window (read backwards from the newest, so the cost is the window's) and the last one
 * recorded now (later events are live, not replayed).
 */
async function bounds(db: Executor, spec: ReplaySpec) {
  const source = sourceOf(spec);
  if (source === 'deliveries')
    // (ids encode time from 1970: an earlier `since` starts at the first)
    return {
      source,
      afterId: idFloor('dlv', new Date(Math.max(0, spec.since.getTime()))),
      afterSequence: null,
      endSequence: null,
    };
  const { rows } = await sql<{ after: string; end: string }>`
    select coalesce((select sequence from events
                     where merchant_id = ${spec.merchantId} and mode = ${spec.mode}
                       and created_at < ${spec.since}::timestamptz
                     order by sequence desc limit 1), 0)::text as after,
           coalesce((select max(sequence) from events
                     where merchant_id = ${spec.merchantId} and mode = ${spec.mode}), 0)::text as end`.execute(
    db,
  );
  return { source, afterId: null, afterSequence: rows[0]!.after, endSequence: rows[0]!.end };
}

type Bounds = Awaited<ReturnType<typeof bounds>>;

/** The row `r` the walk reads, made of values. */
function specRow(spec: ReplaySpec, b: Bounds): RawBuilder<unknown> {
  const types = spec.eventTypes === null ? null : [...spec.eventTypes];
  return sql`r as (
      select ${spec.webhookId}::text as webhook_id, ${spec.merchantId}::text as merchant_id,
             ${spec.mode}::text as mode, ${b.source}::text as source, ${spec.eventStatus}::text as event_status,
             ${spec.since}::timestamptz as since, ${spec.until}::timestamptz as until,
             ${types}::text[] as event_types, ${spec.storeId}::text as store_id, ${b.afterId}::text as after_id,
             ${b.afterSequence}::bigint as after_sequence, ${b.endSequence}::bigint as end_sequence
    )`;
}

async function countWalk(db: Executor, spec: ReplaySpec, b: Bounds): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with ${specRow(spec, b)}, ${walked(() => sql``)}
    select count(*)::int as n from src`.execute(db);
  return rows[0]!.n;
}

/** How many events a replay of `spec` would walk (queued or skipped), counted now. */
export async function countReplay(db: Executor, spec: ReplaySpec): Promise<number> {
  return countWalk(db, spec, await bounds(db, spec));
}

/** Records a running replay of `spec`, its `matched` counted now; in the caller's transaction. */
export async function insertReplay(
  db: Executor,
  id: string,
  spec: ReplaySpec,
  now: Date,
): Promise<ReplayRow> {
  const b = await bounds(db, spec);
  const matched = await countWalk(db, spec, b);
  return db
    .insertInto('webhook_replays')
    .values({
      id,
      merchant_id: spec.merchantId,
      mode: spec.mode,
      webhook_id: spec.webhookId,
      status: 'running',
      event_status: spec.eventStatus,
      since: spec.since,
      until: spec.until,
      event_types: spec.eventTypes === null ? null : [...spec.eventTypes],
      store_id: spec.storeId,
      source: b.source,
      after_id: b.afterId,
      after_sequence: b.afterSequence,
      end_sequence: b.endSequence,
      matched,
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

const replaysOf = (db: Executor, webhookId: string) =>
  db.selectFrom('webhook_replays').where('webhook_id', '=', webhookId);

/** A page of the webhook's replays, newest first; the webhook was found within the caller's merchant. */
export async function listReplays(
  db: Executor,
  webhookId: string,
  page: PageInput,
): Promise<Page<ReplayRow>> {
  return pageById(replaysOf(db, webhookId), replaysOf(db, webhookId).selectAll(), page);
}

export async function findReplay(
  db: Executor,
  webhookId: string,
  id: string,
): Promise<ReplayRow | undefined> {
  return replaysOf(db, webhookId).selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Stops a running replay: what it queued stays queued, nothing more is. Waits for a batch under way (its row
 * lock), so the counts it answers are final. Undefined when the replay is not the webhook's.
 */
export async function cancelReplay(
  db: Executor,
  webhookId: string,
  id: string,
  now: Date,
): Promise<ReplayRow | undefined> {
  const cancelled = await db
    .updateTable('webhook_replays')
    .set({ status: 'cancelled', finished_at: now, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
  return cancelled ?? findReplay(db, webhookId, id);
}

/** What one batch did: its replay, whether that is still running, and how many deliveries it queued. */
export interface ReplayBatch {
  id: string;
  status: string;
  queued: number;
}

/**
 * One batch of the least recently advanced running replay that no other statement holds (SKIP LOCKED): up to
 * `batch` walked rows; those of a type the webhook subscribes to now that its filter accepts become deliveries
 * parked as 'replay' (the claims take them after every due one), the rest are skipped; the cursor and counts
 * move in the same statement, so a restart continues from the last commit and nothing is queued twice. A
 * walk shorter than the batch is the end (`done`, and `matched` what was queued and skipped); a webhook
 * disabled or deleted meanwhile ends it (`cancelled`). Delivery ids: `prefix` (the time part of a delivery
 * id made now, src/lib/ids.ts), the row's place in the walk and 72 random bits, so they sort in walk order.
 * Undefined when no replay is running (or every running one is held).
 */
export async function advanceReplay(
  db: Executor,
  prefix: string,
  batch: number,
  now: Date,
): Promise<ReplayBatch | undefined> {
  const { rows } = await sql<ReplayBatch>`
    with r as (
      select x.* from webhook_replays x where x.status = 'running'
      order by x.updated_at, x.id limit 1
      for update skip locked
    ), w as (
      select w.id, w.merchant_id, w.mode, w.events, w.filter, w.app_id,
             w.status = 'enabled' and w.deleted_at is null as live
      from webhooks w where w.id = (select webhook_id from r)
    ), ${walked((order) => sql`${order} limit ${batch}::int`)}, judged as (
      select s.*, row_number() over (order by s.after_id, s.after_sequence) as n,
             coalesce(e.payload is not null and s.type = any (w.events) and case
               when w.filter is null then true
               when w.app_id is null then svc_payload_matches(w.filter, e.payload::jsonb)
               else svc_payload_matches(w.filter, e.payload::jsonb || jsonb_build_object(
                 'app_id', w.app_id, 'grant_id', s.grant_id, 'store_id', s.store_id)) end, false) as ok
      from src s
      cross join w
      left join lateral (select payload from events where id = s.event_id offset 0) e on true
      where w.live
    ), ${queueReplayed(prefix, now)}, step as (
      select (select count(*)::int from ins) as queued,
             (select count(*)::int from judged where not ok) as skipped,
             coalesce((select live from w), false) as live,
             (select count(*) from src) < ${batch}::int as ended
    ), upd as (
      update webhook_replays x
      set after_id = coalesce((select max(after_id) from src), x.after_id),
          after_sequence = coalesce((select max(after_sequence) from src), x.after_sequence),
          queued = x.queued + s.queued,
          skipped = x.skipped + s.skipped,
          matched = case when s.live and s.ended then x.queued + s.queued + x.skipped + s.skipped
                         else x.matched end,
          status = case when not s.live then 'cancelled' when s.ended then 'done' else 'running' end,
          finished_at = case when not s.live or s.ended then ${now}::timestamptz end,
          updated_at = ${now}::timestamptz
      from step s
      where x.id = (select id from r)
      returning x.id, x.status, s.queued
    )
    select id, status, queued from upd`.execute(db);
  return rows[0];
}
