// Reading every attempt of a merchant's endpoints (API.md section 12.2, GET /webhook-attempts): newest first by
// id, which begins with the attempt's start, so that `starting_after`, `since` and `until` are bounds on the id.
// Each filter has an index in the list's order (migration 0130): a page is one range read however many attempts
// the merchant holds. A filter of several values (`order.*`, `4xx,5xx`) reads one range per value, each cut at
// the page's size, and keeps the newest of them: one index range each rather than a sort of every match. The
// count of the usual filters is a sum of counters (migration 0172); of the others, a count of the matches.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { idFloor } from '../../lib/ids.ts';
import { paginate, type Page, type PageInput, type Scope } from '../../lib/scope.ts';
import type { AttemptOutcome, AttemptRow } from '../delivery/index.ts';

export interface AttemptFilter {
  readonly webhookId?: string | undefined;
  /** Exact types (a family already expanded by the caller). */
  readonly eventTypes?: readonly string[] | undefined;
  readonly outcomes?: readonly AttemptOutcome[] | undefined;
  /** Hundreds of the status: 2 for 2xx ... 5 for 5xx. */
  readonly statusClasses?: readonly number[] | undefined;
  readonly storeId?: string | undefined;
  readonly appId?: string | undefined;
  /** Attempts started at or after. */
  readonly since?: Date | undefined;
  /** Attempts started before. */
  readonly until?: Date | undefined;
}

const COLUMNS = [
  'id',
  'delivery_id',
  'webhook_id',
  'event_id',
  'event_type',
  'store_id',
  'app_id',
  'number',
  'outcome',
  'response_status',
  'duration_ms',
  'started_at',
] as const;
export type ListedAttempt = Pick<AttemptRow, (typeof COLUMNS)[number]>;

/** The status class as the class index holds it. */
const statusClass = sql<number>`(response_status / 100)`;

/** A time as an id bound; ids hold no time before 1970, the first id time. */
const timeBound = (at: Date) => idFloor('att', new Date(Math.max(0, at.getTime())));

/** The tenant, the single-valued filters and the time window: what every branch and the count share. */
function scoped(db: Executor, scope: Scope, f: AttemptFilter) {
  let q = db
    .selectFrom('delivery_attempts')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode);
  if (f.webhookId !== undefined) q = q.where('webhook_id', '=', f.webhookId);
  if (f.storeId !== undefined) q = q.where('store_id', '=', f.storeId);
  if (f.appId !== undefined) q = q.where('app_id', '=', f.appId);
  if (f.since !== undefined) q = q.where('id', '>=', timeBound(f.since));
  if (f.until !== undefined) q = q.where('id', '<', timeBound(f.until));
  // the class index holds only attempts that got an answer; the planner cannot see that from the expression
  if (f.statusClasses !== undefined) q = q.where('response_status', 'is not', null);
  return q;
}

type Scoped = ReturnType<typeof scoped>;
type Dimension = 'eventTypes' | 'outcomes' | 'statusClasses';

const COLUMN_OF = {
  eventTypes: sql.ref<string>('event_type'),
  outcomes: sql.ref<string>('outcome'),
  statusClasses: statusClass,
};

/** One filter of several values as one equality per branch; `undefined` values: the filter is off. */
function restrict(
  q: Scoped,
  dimension: Dimension,
  values: readonly (string | number)[] | undefined,
): Scoped[] {
  if (values === undefined) return [q];
  return values.map((v) => q.where(COLUMN_OF[dimension], '=', v));
}

/** The same filter as one condition (an IN list): for the count, and for the dimensions not split. */
function within(q: Scoped, dimension: Dimension, values: readonly (string | number)[] | undefined): Scoped {
  if (values === undefined) return q;
  const column = COLUMN_OF[dimension];
  return values.length === 1 ? q.where(column, '=', values[0]!) : q.where(column, 'in', [...values]);
}

const DIMENSIONS: readonly Dimension[] = ['eventTypes', 'outcomes', 'statusClasses'];

/**
 * The branches of a page: the first filter of several values is split into one branch per value (each an
 * ordered range of its index), the others stay conditions of each branch.
 */
function branches(db: Executor, scope: Scope, f: AttemptFilter): Scoped[] {
  const split = DIMENSIONS.find((d) => (f[d]?.length ?? 0) > 1);
  let shared = scoped(db, scope, f);
  for (const d of DIMENSIONS) if (d !== split) shared = within(shared, d, f[d]);
  return split === undefined ? [shared] : restrict(shared, split, f[split]);
}

/** Every attempt of one delivery, in order (the delivery's page); the caller found it within the merchant. */
export async function attemptsOfDelivery(db: Executor, deliveryId: string): Promise<AttemptRow[]> {
  return db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('number')
    .execute();
}

/** The statement of one page: exported so that a test can read its plan. */
export function attemptsPageStatement(
  db: Executor,
  scope: Scope,
  f: AttemptFilter,
  after: string | undefined,
  take: number,
): RawBuilder<ListedAttempt> {
  const parts = branches(db, scope, f).map((b) =>
    (after === undefined ? b : b.where('id', '<', after)).select(COLUMNS).orderBy('id', 'desc').limit(take),
  );
  // an embedded query is parenthesised: `(select ...) union all (select ...)`
  if (parts.length === 1) return sql<ListedAttempt>`select * from ${parts[0]!} as a order by id desc`;
  return sql<ListedAttempt>`select * from (${sql.join(parts, sql` union all `)}) as a order by id desc limit ${take}`;
}

/** The filters a counter key may combine (migration 0172), in the keys' order: a key names each one used. */
const COUNTED: ReadonlySet<string> = new Set([
  '',
  'w',
  't',
  'o',
  'c',
  's',
  'a',
  'w o',
  'w t',
  'w c',
  'o t',
  'w o t',
]);

/**
 * The keys of delivery_attempt_counts whose sum is the count of this filter, when some are: no time window, and
 * filters of a combination the counters keep (`COUNTED`), each of any number of values.
 */
function counterKeys(f: AttemptFilter): string[] | undefined {
  if (f.since !== undefined || f.until !== undefined) return undefined;
  const one = (v: string | undefined) => (v === undefined ? undefined : [v]);
  const used = (
    [
      ['w', one(f.webhookId)],
      ['o', f.outcomes],
      ['t', f.eventTypes],
      ['c', f.statusClasses],
      ['s', one(f.storeId)],
      ['a', one(f.appId)],
    ] as const
  ).filter(([, values]) => values !== undefined);
  if (!COUNTED.has(used.map(([p]) => p).join(' '))) return undefined;
  // one key per combination of the values: `order.*` with `failed,timeout` is eight keys
  let keys = [''];
  for (const [prefix, values] of used) {
    keys = keys.flatMap((k) => values!.map((v) => `${k ? `${k} ` : ''}${prefix}:${v}`));
  }
  return used.length ? keys : ['*'];
}

/** One page of the merchant's attempts in the mode, and the count of every match. */
export async function listMerchantAttempts(
  db: Executor,
  scope: Scope,
  f: AttemptFilter,
  page: PageInput,
): Promise<Page<ListedAttempt>> {
  return paginate(page, {
    rows: async (after, take) => (await attemptsPageStatement(db, scope, f, after, take).execute(db)).rows,
    count: async () => {
      const keys = counterKeys(f);
      if (keys !== undefined) {
        const row = await db
          .selectFrom('delivery_attempt_counts')
          .where('merchant_id', '=', scope.merchantId)
          .where('mode', '=', scope.mode)
          .where('key', 'in', keys.length ? keys : [''])
          .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('n'), sql<string>`0`).as('n'))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      }
      let q = scoped(db, scope, f);
      for (const d of DIMENSIONS) q = within(q, d, f[d]);
      const row = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  });
}
