// The hot statements' pool (src/modules/oauth-token/pool.ts) keeps one generic plan per statement and connection, and that plan
// looks each batch's rows up by key: on a new database whose tables were never analyzed, and once the tables
// have grown and been analyzed. A connection is replaced after MAX_USES statements, and its plans with it.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { MAX_USES } from '../../src/db/prepared.ts';
import { hotPool } from '../../src/modules/oauth-token/pool.ts';
import { ISSUE_SQL, ROTATE_SQL } from '../../src/modules/oauth/token-statements.repository.ts';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The generic plan of each hot statement, prepared on a connection of the pool. */
async function plans(pool: pg.Pool): Promise<Record<string, PlanNode[]>> {
  const client = await pool.connect();
  try {
    const found: Record<string, PlanNode[]> = {};
    for (const [name, text] of Object.entries({ rotate: ROTATE_SQL, issue: ISSUE_SQL })) {
      const params = Math.max(...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
      await client.query(`prepare ${name} as ${text}`);
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `explain (format json) execute ${name}(${Array(params).fill('null').join(', ')})`,
      );
      await client.query(`deallocate ${name}`);
      found[name] = nodes(rows[0]!['QUERY PLAN'][0].Plan);
    }
    return found;
  } finally {
    client.release();
  }
}

/** Every read of a table in the plans is a lookup by key, and no join needs a whole table. */
function expectLookups(found: Record<string, PlanNode[]>): void {
  for (const [name, plan] of Object.entries(found)) {
    const types = plan.map((n) => n['Node Type']);
    expect(types, name).not.toContain('Seq Scan');
    expect(types, name).not.toContain('Hash Join');
    expect(types, name).not.toContain('Merge Join');
    const reads = plan.filter((n) => n['Relation Name'] && n['Node Type'].endsWith('Scan'));
    expect(reads.length, name).toBeGreaterThan(0);
    for (const read of reads) expect(read['Index Cond'], `${name}: ${read['Relation Name']}`).toBeDefined();
  }
}

describe.skipIf(DB_KIND === 'pglite')('the hot statements pool', () => {
  let svc: TestService;
  let pool: pg.Pool;
  beforeAll(async () => {
    svc = await startTestService();
    pool = hotPool(svc.ctx.config)!;
  });
  afterAll(async () => {
    await pool?.end();
    await svc?.close();
  });

  it('plans once, generically, with lookups by key on a new database and on grown tables', async () => {
    const { rows } = await pool.query<{ plan_cache_mode: string }>('show plan_cache_mode');
    expect(rows[0]!.plan_cache_mode).toBe('force_generic_plan');
    expectLookups(await plans(pool));

    // 20,000 rows in each table the statements read, then their statistics (the rows need no parents here)
    const client = await pool.connect();
    try {
      await client.query(`set session_replication_role = replica`);
      await client.query(`
        insert into oauth_tokens (hash, kind, family_id, grant_id, app_id, merchant_id, mode, scopes, expires_at)
        select sha256(int4send(i)), 'refresh', 'fam_' || i, 'grt_' || i, 'app_1', 'mer_1', 'test', 'read',
               now() + interval '1 day'
          from generate_series(1, 20000) i`);
      await client.query(`
        insert into oauth_codes (hash, grant_id, app_id, merchant_id, mode, redirect_uri, scopes,
                                 code_challenge, family_id, expires_at)
        select sha256(int4send(i)), 'grt_' || i, 'app_1', 'mer_1', 'test', 'https://a.example/cb', 'read',
               'c', 'fam_' || i, now() + interval '1 minute'
          from generate_series(1, 20000) i`);
      await client.query('analyze oauth_tokens; analyze oauth_codes; analyze oauth_grants');
    } finally {
      client.release(true); // the replication role goes with the connection
    }
    expectLookups(await plans(pool));
  });

  it(`replaces a connection after ${MAX_USES} statements`, async () => {
    const pid = async () =>
      (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    await pool.query('select 1'); // one idle connection, which the statements below take in turn
    const first = await pid();
    const pids = new Set([first]);
    for (let i = 0; i < MAX_USES; i++) pids.add(await pid());
    expect(pids.size).toBeGreaterThan(1);
  });
});
