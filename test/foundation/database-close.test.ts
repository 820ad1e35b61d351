// Closing a database closes what it opened. On PostgreSQL the pool that served the migration alone (Kysely
// ran no query, so its destroy() left the pool to itself) kept its connection for the 30 s idle timeout:
// the process could not exit before, and a copy of that database (the tests' template) waited on it.
// PostgreSQL only: the embedded database has no pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { eventually } from '../support/eventually.ts';
import { DB_KIND, freshDatabase } from '../support/service.ts';

describe.runIf(DB_KIND === 'pg')('closing a database on PostgreSQL', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    fresh = await freshDatabase();
  });
  afterAll(async () => fresh?.drop());

  /** The server's connections to the test's database, other than the one asking. */
  async function otherBackends(): Promise<number> {
    const admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      return rows[0]!.n;
    } finally {
      await admin.end();
    }
  }

  it('ends the pool at once when only the migration used it', async () => {
    const database = await openDatabase({ databaseUrl: fresh.url }); // migrates: one connection, left idle
    expect(database.poolStats!().size).toBe(1);
    await database.close();
    expect(database.poolStats!().size).toBe(0);
    // the server sees the connection go (a backend exits just after its client's goodbye), well before
    // the pool's 30 s idle timeout would have closed it
    await eventually(async () => (await otherBackends()) === 0, {
      what: 'the closed pool’s connections to leave the server',
    });
  });

  it('ends the pool once when Kysely used it too', async () => {
    const database = await openDatabase({ databaseUrl: fresh.url, migrated: true });
    await database.db.selectFrom('merchants').select('id').execute();
    await database.close(); // Kysely's destroy() ended this pool: ending it again would throw
    expect(database.poolStats!().size).toBe(0);
  });
});
