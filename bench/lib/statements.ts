// With `--profile`, pg_stat_statements records what the database spent its time on; after each measure the
// top statements are logged and reset, so a short measure can be traced to the SQL that bounds it.
import pg from 'pg';

export const STATEMENT_SETTINGS = {
  shared_preload_libraries: "'pg_stat_statements'",
  'pg_stat_statements.track': "'all'",
  'pg_stat_statements.track_planning': 'on',
};

export interface StatementLine {
  calls: number;
  total_ms: number;
  /** Planning time in all (pg_stat_statements.track_planning). */
  plan_ms: number;
  mean_ms: number;
  query: string;
}

export async function enableStatements(url: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query('create extension if not exists pg_stat_statements');
  await db.end();
}

/** The `limit` statements with the most total time since the last call, then a reset. */
export async function topStatements(url: string, limit = 8): Promise<StatementLine[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<StatementLine>(
      `select calls::int, round(total_exec_time::numeric, 1)::float as total_ms,
              round(total_plan_time::numeric, 1)::float as plan_ms,
              round(mean_exec_time::numeric, 3)::float as mean_ms,
              regexp_replace(left(query, 160), '\\s+', ' ', 'g') as query
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database()
        order by total_exec_time desc limit $1`,
      [limit],
    );
    await db.query('select pg_stat_statements_reset()');
    return rows;
  } finally {
    await db.end();
  }
}
