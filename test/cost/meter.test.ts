// The cost meter itself (src/db/statement-counter.ts, test/cost/meter.ts, test/cost/crypto-counter.ts): what
// it counts as a statement and a round trip, that it sees what goes around Kysely, that it keeps only the
// measured operation's work, that a named import of node:crypto in src/ reaches its wrappers, and that
// nothing of it is left on the drivers or on node:crypto once it is closed.
import crypto from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notify } from '../../src/db/bus.ts';
import { statementsIn } from '../../src/db/statement-counter.ts';
import { hashCredential } from '../../src/lib/credentials.ts';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { differences, startMeter, type Meter } from './meter.ts';

// Before any meter of this file.
const PG_QUERY = pg.Client.prototype.query;
const CREATE_HASH = crypto.createHash;
const TIMING_SAFE_EQUAL = crypto.timingSafeEqual;

let svc: TestService;
let meter: Meter;
beforeAll(async () => {
  svc = await startTestService();
  meter = startMeter();
});
afterAll(async () => {
  meter?.close();
  await svc?.close();
});

describe('statements in a simple-protocol text', () => {
  it.each([
    ['select 1', 1],
    ['select 1;', 1],
    ['begin; select 1; commit;', 3],
    [" ; select ';' ; ", 1],
    ['select $$;$$, $tag$ ; $tag$; select 2', 2],
    ['select 1 -- ; not a statement\n; /* ; /* nested; */ ; */ select "a;b"', 2],
    ["select E'\\';', 'it''s;'; select 2", 2],
    ['', 0],
  ])('%j holds %i', (text, n) => expect(statementsIn(text)).toBe(n));
});

it('names the path, the count and the budget: over it, and under it with the figure to write', () => {
  const budget = { statements: 1, roundTrips: 1, crypto: { createHash: 4 } };
  expect(differences('refresh', budget, { statements: 2, roundTrips: 1, crypto: { createHash: 3 } })).toEqual(
    [
      'refresh: 2 statements, budget 1 (test/cost/budgets.ts)',
      'refresh: 3 createHash calls, budget 4: lower the budget to 3 (test/cost/budgets.ts)',
    ],
  );
});

describe('what is counted', () => {
  it('a transaction: BEGIN, its statement and COMMIT, each a round trip', async () => {
    const { tally } = await meter.measure(() =>
      svc.ctx.db.transaction().execute((trx) => sql`select 1`.execute(trx)),
    );
    expect(tally).toMatchObject({ statements: 3, roundTrips: 3, queries: ['begin', 'select 1', 'commit'] });
  });

  it('a NOTIFY, and the bus\u2019s LISTEN on its own connection (pg) or through PGlite\u2019s exec', async () => {
    const { tally } = await meter.measure(async () => {
      await notify(svc.ctx.db, 'svc_cost_probe', 'x');
      await svc.ctx.bus.listen('svc_cost_probe', () => {});
    });
    expect(tally).toMatchObject({ statements: 2, roundTrips: 2 });
    expect(tally.queries[1]).toMatch(/^listen "?svc_cost_probe"?$/i);
  });

  it.runIf(DB_KIND === 'pg')(
    'on pg, several statements in one simple-protocol text: one round trip',
    async () => {
      const { tally } = await meter.measure(() => sql.raw('select 1; select 2').execute(svc.ctx.db));
      expect(tally).toMatchObject({ statements: 2, roundTrips: 1 });
    },
  );

  it('only the measured operation\u2019s work, not what another context runs meanwhile', async () => {
    // Started outside the window, run during it: a background loop's statement.
    const outside = new Promise((resolve) => setImmediate(() => resolve(sql`select 2`.execute(svc.ctx.db))));
    const { tally } = await meter.measure(async () => {
      await sql`select 1`.execute(svc.ctx.db);
      await outside;
    });
    expect(tally.queries).toEqual(['select 1']);
  });

  it('a named import of node:crypto in src/: seen once the exports are synced, not before', async () => {
    const original = crypto.createHash;
    let calls = 0;
    crypto.createHash = (...args: Parameters<typeof original>) => {
      calls++;
      return original(...args);
    };
    try {
      hashCredential('svc_test');
    } finally {
      crypto.createHash = original;
    }
    expect(calls).toBe(0); // the binding src/lib/credentials.ts imported still held the original
    const { tally } = await meter.measure(async () => {
      hashCredential('svc_test');
    });
    expect(tally.crypto).toEqual({ createHash: 1 });
  });
});

// Last: closes the file's meter.
it('leaves the drivers and node:crypto as they were once closed', () => {
  expect(pg.Client.prototype.query).not.toBe(PG_QUERY);
  expect(Object.hasOwn(PGlite.prototype, 'query')).toBe(true);
  meter.close();
  expect(pg.Client.prototype.query).toBe(PG_QUERY);
  expect(Object.hasOwn(PGlite.prototype, 'query')).toBe(false);
  expect(Object.hasOwn(PGlite.prototype, 'exec')).toBe(false);
  expect(crypto.createHash).toBe(CREATE_HASH);
  expect(crypto.timingSafeEqual).toBe(TIMING_SAFE_EQUAL);
});
