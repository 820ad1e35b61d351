// Hot statements run by name on a small pool of their owner's own (PostgreSQL only). Kysely sends every query
// unnamed, so PostgreSQL parses and plans it again at each call, and a statement of many CTEs can cost more to
// plan than to run. Named, each is parsed once per connection and planned generically. On the embedded
// database (no pool) a statement runs unnamed on the service's executor, as every other one does.
// Two owners: the token endpoint's batches (src/modules/oauth-token/pool.ts) and the delivery worker's plain
// claim and recordings (docs/decisions/0225-delivery-statements-prepared.md).
import type { CompiledQuery, RawBuilder } from 'kysely';
import type pg from 'pg';
import type { Executor } from './executor.ts';
import { createPool } from './pg-pool.ts';

/** Where hot statements run: on `pool` by name when there is one (none on PGlite), else unnamed on `db`. */
export interface Prepared {
  readonly db: Executor;
  readonly pool?: pg.Pool | undefined;
}

// A generic plan is made from the tables' size at that moment, and one made while a table was nearly empty
// once kept a sequential scan for a connection's life (the token endpoint's, at 22,000 rows: 20 ms a batch).
// So every such pool plans without sequential scans, and replaces a connection, and its plans with it, after
// MAX_USES statements: opening one costs about 2 ms, under 0.01 ms a statement.
export const MAX_USES = 500;
const GENERIC = { plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off' } as const;

/**
 * A pool whose statements are planned generically, without sequential scans, with the owner's `settings`
 * besides; none on the embedded database (no URL).
 */
export function preparedPool(
  databaseUrl: string | undefined,
  max: number,
  settings: Readonly<Record<string, string>> = {},
): pg.Pool | undefined {
  if (!databaseUrl) return undefined;
  return createPool(databaseUrl, {
    max,
    allowExitOnIdle: true,
    settings: { ...GENERIC, ...settings },
    maxUses: MAX_USES,
  });
}

/** Runs `query` as the prepared statement `name`: one name, one text (a statement's variants name each). */
export async function runPrepared<R>(
  on: Prepared,
  name: string,
  query: RawBuilder<R> | CompiledQuery<R>,
): Promise<R[]> {
  const compiled = 'compile' in query ? query.compile(on.db) : query;
  if (!on.pool) return (await on.db.executeQuery<R>(compiled)).rows;
  const values = compiled.parameters as unknown[];
  return (await on.pool.query<R & pg.QueryResultRow>({ name, text: compiled.sql, values })).rows;
}
