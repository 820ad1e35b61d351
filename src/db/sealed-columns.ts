// The statements over sealed columns (secrets stored under the master key, src/lib/secrets.ts), one shape for
// every such column, whatever its table: the start-up check looks for a secret sealed under a key that
// SVC_MASTER_KEY does not list, and the master-key rotation walks the rows by primary key and re-seals them.
// Which columns are sealed is listed in one place, src/master-keys.ts. These statements are the one write to
// a table outside its owner: a re-seal replaces a secret by the same secret under another key, and only if
// the row still holds what was read (a merchant's rotation in between wins). System queries, not tenant reads.
import { sql, type RawBuilder } from 'kysely';
import type { DB } from '../schema.ts';
import type { Executor } from './database.ts';

type Table = keyof DB;
type Column<T extends Table> = keyof DB[T] & string;
/** The columns of a table that hold text (a sealed secret is text, or null). */
type TextColumn<T extends Table> = {
  [C in Column<T>]: DB[T][C] extends string | null ? C : never;
}[Column<T>];

export interface SealedColumns {
  /** What a rotation reports its progress and its total under. */
  readonly name: string;
  /** What the start-up check says was sealed ("webhook secrets"). */
  readonly what: string;
  readonly table: Table;
  /** The primary key: the rotation's cursor, and what finds the row again. */
  readonly key: readonly string[];
  /** The columns that hold a sealed secret, or null. */
  readonly columns: readonly string[];
}

/** A table's sealed columns, checked against its row type. */
export function sealedColumns<T extends Table, const N extends string>(
  table: T,
  set: { name: N; what: string; key: readonly Column<T>[]; columns: readonly TextColumn<T>[] },
): SealedColumns & { readonly name: N } {
  return { ...set, table };
}

/** A row as the rotation reads it: its key and its sealed columns, by column name. */
export type SealedRow = Readonly<Record<string, string | null>>;

const list = (items: readonly RawBuilder<unknown>[]) => sql.join(items, sql`, `);
const refs = (columns: readonly string[]) => list(columns.map((c) => sql.ref(c)));
const values = (row: SealedRow, columns: readonly string[]) => list(columns.map((c) => sql`${row[c]}`));
/** Some column holds a secret not sealed under `keyId` (null is no secret). */
const notSealedUnder = (set: SealedColumns, keyId: string) =>
  sql.join(
    set.columns.map((c) => sql`${sql.ref(c)} not like ${`v2.${keyId}.%`}`),
    sql` or `,
  );

/**
 * One stored secret sealed under none of `keyIds` (a `v2` naming another key), and one in the legacy `v1`
 * form, if any: the start-up check opens the latter to know whether a listed key fits. Stops at the first.
 */
export async function foreignSealed(
  db: Executor,
  set: SealedColumns,
  keyIds: readonly string[],
): Promise<{ foreign: string | undefined; legacy: string | undefined }> {
  const known = keyIds.map((id) => `v2.${id}.%`);
  const secrets = sql`${sql.table(set.table)} t, lateral (values ${list(
    set.columns.map((c) => sql`(${sql.ref(`t.${c}`)})`),
  )}) v(s)`;
  const { rows } = await sql<{ foreign: string | null; legacy: string | null }>`
    select
      (select s from ${secrets} where s like 'v2.%' and not (s like any (${known}::text[])) limit 1) as foreign,
      (select s from ${secrets} where s like 'v1.%' limit 1) as legacy
  `.execute(db);
  return { foreign: rows[0]?.foreign ?? undefined, legacy: rows[0]?.legacy ?? undefined };
}

/** How many rows hold a secret not sealed under `keyId` (the size of a rotation). */
export async function countNotSealedUnder(db: Executor, set: SealedColumns, keyId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from ${sql.table(set.table)} where ${notSealedUnder(set, keyId)}
  `.execute(db);
  return rows[0]?.n ?? 0;
}

/** The next rows (by primary key, after the row `after`) with a secret not sealed under `keyId`. */
export async function nextNotSealedUnder(
  db: Executor,
  set: SealedColumns,
  keyId: string,
  after: SealedRow | undefined,
  limit: number,
): Promise<SealedRow[]> {
  const past = after ? sql`(${refs(set.key)}) > (${values(after, set.key)}) and` : sql``;
  const { rows } = await sql<SealedRow>`
    select ${refs([...set.key, ...set.columns])} from ${sql.table(set.table)}
    where ${past} (${notSealedUnder(set, keyId)})
    order by ${refs(set.key)}
    limit ${limit}::int
  `.execute(db);
  return rows;
}

/** Writes a row's re-sealed secrets, unless they changed since `before` was read; whether it did. */
export async function replaceSealed(
  db: Executor,
  set: SealedColumns,
  before: SealedRow,
  after: SealedRow,
): Promise<boolean> {
  const assign = list(set.columns.map((c) => sql`${sql.ref(c)} = ${after[c]}`));
  const same = sql.join(
    [
      ...set.key.map((c) => sql`${sql.ref(c)} = ${before[c]}`),
      ...set.columns.map((c) => sql`${sql.ref(c)} is not distinct from ${before[c]}`),
    ],
    sql` and `,
  );
  const result = await sql`update ${sql.table(set.table)} set ${assign} where ${same}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}
