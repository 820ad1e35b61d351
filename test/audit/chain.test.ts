// The audit chain (API.md section 11.5): every entry's hash recomputes from the contract's rule, written out
// here independently of the service's code; sequences are 1, 2, 3, ... per merchant and mode with no gap,
// whatever order concurrent writers commit in; entries are unsealed (null) until the sealer reaches them;
// the entries of before the chain are sealed oldest first; a row inserted by hand, outside the chain, is
// reported by the chain check until it is in the chain.
import { systemClock } from '../../src/lib/time.ts';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import {
  AUDIT_SIGNING_KEY,
  DB_KIND,
  MASTER_KEY,
  startTestService,
  type TestService,
} from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import {
  allEntries,
  chainState,
  contractHash,
  insertByHand,
  sealAll,
  type ChainedEntry,
} from './chain-support.ts';
import { sql } from 'kysely';
import { outsideChain } from '../../src/modules/audit/outside-chain.repository.ts';
import { writeAudit, type AuditContext } from '../../src/modules/audit/index.ts';
import { loadConfig } from '../../src/config.ts';
import { migrationFiles } from '../../src/db/migrate.ts';
import { openDatabase, openPglite } from '../../src/db/database.ts';
import { createService } from '../../src/server.ts';
import { newId } from '../../src/lib/ids.ts';

const GENESIS = '0'.repeat(64);

let svc: TestService;
let m: TestMerchant;
let other: TestMerchant;

const who = (merchantId: string, mode: 'test' | 'live'): AuditContext => ({
  merchantId,
  mode,
  actor: { type: 'user', id: 'usr_x' },
  ip: '127.0.0.1',
  userAgent: 'vitest',
  requestId: 'req_test',
  clock: systemClock,
});

async function write(
  merchantId: string,
  mode: 'test' | 'live',
  n: number,
  fields: Record<string, unknown> = {},
) {
  await svc.ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < n; i++) {
      await writeAudit(trx, who(merchantId, mode), {
        action: 'webhook.updated',
        entityType: 'webhook',
        entityId: `wh_${i}`,
        fields: { n: i, ...fields },
      });
    }
  });
}

/** The chain of a log listed newest first: oldest first, with its links checked by the contract's rule. */
function expectChain(entries: ChainedEntry[]): void {
  const chain = [...entries].reverse();
  chain.forEach((e, i) => {
    expect(e.sequence).toBe(i + 1);
    expect(e.prev_hash).toBe(i === 0 ? GENESIS : chain[i - 1]!.hash);
    expect(e.hash).toBe(contractHash(e.prev_hash!, e));
  });
}

beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
  other = await signupMerchant(svc.app);
});
afterAll(() => svc?.close());

describe('the audit chain', () => {
  it('leaves entries unsealed (null) until the sealer reaches them, then chains them by the contract', async () => {
    // Text that canonical JSON must get exactly right: quotes, a backslash, a control character, non-ASCII
    // (kept as is) and characters outside the BMP.
    await write(m.merchantId, 'test', 3, { name: 'say "hi" \\ \u0007 café 🧾 \u2028' });
    const before = await allEntries(svc, m);
    expect(before).toHaveLength(3);
    for (const e of before) expect(e).toMatchObject({ sequence: null, hash: null, prev_hash: null });
    const waiting = await svc.app.inject({ url: '/api/v1/merchant/developer/logs/chain', headers: m.auth });
    expect(waiting.json()).toMatchObject({
      data: { state: 'verified', verified_through: null, unsealed: 3 },
    });

    await sealAll(svc);
    await write(m.merchantId, 'test', 2);
    await sealAll(svc);
    const after = await allEntries(svc, m);
    expect(after).toHaveLength(5);
    expectChain(after);
    expect(after.slice(2).map((e) => e.id)).toEqual(before.map((e) => e.id));
  });

  it('keeps one chain per merchant and mode, each from 1', async () => {
    await write(m.merchantId, 'live', 4);
    await write(other.merchantId, 'test', 6);
    await sealAll(svc);
    const live = await allEntries(svc, m, 'live');
    expect(live).toHaveLength(4);
    expectChain(live);
    const others = await allEntries(svc, other);
    expect(others).toHaveLength(6);
    expectChain(others);
  });

  it('stays gapless when many writers commit at once and sealing runs meanwhile', async () => {
    const fresh = await signupMerchant(svc.app);
    const sealing = (async () => {
      for (let i = 0; i < 20; i++) await sealAll(svc);
    })();
    await Promise.all(Array.from({ length: 20 }, () => write(fresh.merchantId, 'test', 10)));
    await sealing;
    await sealAll(svc);
    const entries = await allEntries(svc, fresh);
    expect(entries).toHaveLength(200);
    const bySequence = [...entries].sort((a, b) => b.sequence! - a.sequence!);
    expectChain(bySequence);
  });
});

describe('an entry inserted by hand', () => {
  it('is outside the chain: never sealed, counted and named by the chain check until it is queued', async () => {
    const fresh = await signupMerchant(svc.app);
    await write(fresh.merchantId, 'test', 2);
    await sealAll(svc);
    expect(await chainState(svc, fresh)).toMatchObject({
      state: 'verified',
      outside_chain: 0,
      first_outside_chain: null,
    });

    // one dated an hour back, one now: the older is named first
    const older = await insertByHand(svc, fresh, { at: new Date(Date.now() - 3_600_000) });
    const newer = await insertByHand(svc, fresh, { action: 'webhook.deleted' });
    await sealAll(svc);
    const listed = await allEntries(svc, fresh);
    expect(listed).toHaveLength(4);
    for (const id of [older.id, newer.id])
      expect(listed.find((e) => e.id === id)).toMatchObject({ sequence: null, hash: null });
    expect(await chainState(svc, fresh)).toMatchObject({
      state: 'outside_chain',
      verified_through: { sequence: 2 },
      broken: null,
      unsealed: 0,
      outside_chain: 2,
      first_outside_chain: older,
    });
    // the merchant's other mode, and another merchant, are not concerned
    await write(fresh.merchantId, 'live', 1);
    await sealAll(svc);
    expect(await chainState(svc, fresh, 'live')).toMatchObject({ state: 'verified', outside_chain: 0 });
    expect(await chainState(svc, other)).toMatchObject({ state: 'verified', outside_chain: 0 });

    // queued for the sealer (docs/guides/audit.md), it is chained as the newest entry and no longer outside
    await sql`insert into audit_pending (log_id) values (${older.id})`.execute(svc.ctx.db);
    await sealAll(svc);
    expect((await allEntries(svc, fresh)).find((e) => e.id === older.id)).toMatchObject({ sequence: 3 });
    expect(await chainState(svc, fresh)).toMatchObject({
      state: 'outside_chain',
      verified_through: { sequence: 3 },
      outside_chain: 1,
      first_outside_chain: newer,
    });

    // a broken chain is the graver finding: the state says so, and still counts what is outside
    await sql`update audit_logs set entity_id = 'wh_changed' where id = ${older.id}`.execute(svc.ctx.db);
    expect(await chainState(svc, fresh)).toMatchObject({
      state: 'broken',
      broken: { sequence: 3, id: older.id },
      outside_chain: 1,
    });
  });
});

describe('an entry whose transaction commits late', () => {
  // A transaction held open while other entries commit and are sealed, its own entry's time an hour before
  // it commits: the sealer finds it when it commits, however old, and chains it after the entries sealed
  // meanwhile. (PostgreSQL only: the embedded database runs one transaction at a time.)
  it.runIf(DB_KIND === 'pg')('is sealed when it commits, after the entries sealed meanwhile', async () => {
    const fresh = await signupMerchant(svc.app);
    await write(fresh.merchantId, 'test', 2);
    await sealAll(svc);
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const hourAgo = { now: () => Date.now() - 3_600_000 };
    const late = svc.ctx.db.transaction().execute(async (trx) => {
      await writeAudit(
        trx,
        { ...who(fresh.merchantId, 'test'), clock: hourAgo },
        { action: 'webhook.updated', entityType: 'webhook', entityId: 'wh_late', fields: {} },
      );
      await held;
    });
    // other chains go on meanwhile (not this one's: its counters are the open transaction's until it ends)
    await write(fresh.merchantId, 'live', 3);
    await sealAll(svc);
    expect(await allEntries(svc, fresh, 'live')).toHaveLength(3);
    commit();
    await late;
    await sealAll(svc);
    const entries = await allEntries(svc, fresh);
    expect(entries).toHaveLength(3);
    const lateEntry = entries.find((e) => e.entity_id === 'wh_late')!;
    // the oldest id, the newest sequence: a chain is in commit order
    expect(entries.at(-1)!.id).toBe(lateEntry.id);
    expect(lateEntry.sequence).toBe(3);
    expectChain([...entries].sort((a, b) => b.sequence! - a.sequence!));
  });
});

describe('the sealer loop', () => {
  it('seals within a few seconds in a process running its loops', async () => {
    const live = await startTestService({ workers: true });
    try {
      const merchant = await signupMerchant(live.app);
      await live.ctx.db.transaction().execute((trx) =>
        writeAudit(trx, who(merchant.merchantId, 'test'), {
          action: 'api_key.created',
          entityType: 'api_key',
          entityId: 'key_x',
        }),
      );
      const entries = await eventually(
        async () => {
          const all = await allEntries(live, merchant);
          return all.every((e) => e.hash !== null) && all;
        },
        { what: 'the entry to be sealed' },
      );
      expectChain(entries);
    } finally {
      await live.close();
    }
  });
});

/**
 * A database migrated up to the chain, holding entries written before it: what an upgrade starts from. `step`
 * applies the migrations from the chain up to (not including) a later one, for rows written between them.
 */
async function databaseBeforeTheChain(): Promise<{
  open: () => ReturnType<typeof openDatabase>;
  exec: (text: string, params?: unknown[]) => Promise<unknown>;
  step: (until: string) => Promise<void>;
  drop: () => Promise<void>;
}> {
  const files = migrationFiles();
  const step = (exec: (text: string, params?: unknown[]) => Promise<unknown>) => async (until: string) => {
    for (const f of files.filter((f) => f.version >= '0070' && f.version < until)) {
      await exec(f.sql);
      await exec('insert into schema_migrations (version) values ($1)', [f.version]);
    }
  };
  const before = files.filter((f) => f.version < '0070');
  if (DB_KIND === 'pglite') {
    const pglite: PGlite = await openPglite(undefined);
    const exec = (text: string, params?: unknown[]) =>
      params ? pglite.query(text, params) : pglite.exec(text);
    await applyMigrations(exec, before);
    return { open: () => openDatabase({ pglite }), exec, step: step(exec), drop: async () => {} };
  }
  const base = inject('pgBaseUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${base}postgres` });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const client = new pg.Client({ connectionString: `${base}${name}` });
  await client.connect();
  const exec = (text: string, params?: unknown[]) => client.query(text, params);
  await applyMigrations(exec, before);
  return {
    open: () => openDatabase({ databaseUrl: `${base}${name}` }),
    exec,
    step: step(exec),
    drop: async () => {
      await client.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function applyMigrations(
  exec: (text: string, params?: unknown[]) => Promise<unknown>,
  files: { version: string; sql: string }[],
) {
  await exec(
    'create table schema_migrations (version text primary key, applied_at timestamptz not null default now())',
  );
  for (const f of files) {
    await exec(f.sql);
    await exec('insert into schema_migrations (version) values ($1)', [f.version]);
  }
}

// One upgrade for two migrations: the entries of before the chain (0070), then a row inserted by hand on a
// chain that did not yet report it (0120). A database made from scratch, its migrations in the test's own
// process, costs PGlite 25-30 s on this machine at load 15-20: past the 30 s of a test when another file runs.
it('seals the entries of before the chain, oldest first, and reports a row inserted by hand since', async () => {
  const db = await databaseBeforeTheChain();
  try {
    await db.exec(`insert into merchants (id, name) values ('mer_old', 'Old')`);
    const start = Date.now() - 86_400_000;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const at = new Date(start + i * 1000);
      ids.push(newId('log', at.getTime()));
      await db.exec(
        `insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
         values ($1, 'mer_old', $2, 'api_key.created', 'api_key', $3, '{"n":${i}}', $4)`,
        [ids[i], i % 3 === 0 ? 'live' : 'test', `key_${i}`, at.toISOString()],
      );
    }
    await db.step('0120'); // the chain queues them
    const byHand = newId('log', start + 60_000);
    await db.exec(
      `insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
       values ($1, 'mer_old', 'test', 'api_key.revoked', 'api_key', 'key_x', '{}', now())`,
      [byHand],
    );
    const database = await db.open(); // migrates to the end
    const config = loadConfig({
      SVC_LOG_LEVEL: 'silent',
      SVC_WORKERS: 'on',
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY,
      ...(DB_KIND === 'pg' ? { DATABASE_URL: 'postgres://unused/' } : {}),
    });
    const service = await createService(config, database);
    try {
      const rows = await eventually(
        async () => {
          const sealed = await service.ctx.db
            .selectFrom('audit_chain as c')
            .innerJoin('audit_logs', 'audit_logs.id', 'c.log_id')
            .select(['c.mode', 'c.sequence', 'c.log_id', 'c.hash', 'c.prev_hash', 'audit_logs.metadata'])
            .where('c.merchant_id', '=', 'mer_old')
            .orderBy('c.log_id')
            .execute();
          return sealed.length === 30 && sealed;
        },
        { what: 'the old entries to be sealed' },
      );
      for (const mode of ['test', 'live'] as const) {
        const chain = rows.filter((r) => r.mode === mode);
        // oldest first: in id order, the sequences count up from 1
        expect(chain.map((r) => r.sequence)).toEqual(chain.map((_, i) => i + 1));
        expect(chain[0]!.prev_hash).toBe(GENESIS);
        chain.slice(1).forEach((r, i) => expect(r.prev_hash).toBe(chain[i]!.hash));
      }
      expect(rows.map((r) => r.log_id)).toEqual(ids);
      // the row by hand is not sealed, and the migration marked it as outside the chain
      expect(await outsideChain(service.ctx.db, { merchantId: 'mer_old', mode: 'test' })).toMatchObject({
        count: 1,
        first: { id: byHand },
      });
      expect(await outsideChain(service.ctx.db, { merchantId: 'mer_old', mode: 'live' })).toMatchObject({
        count: 0,
      });
    } finally {
      await service.close();
    }
  } finally {
    await db.drop();
  }
}, 120_000);
