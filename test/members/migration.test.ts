// Migration 0050 on a database of the one-login era (every migration before it applied, the later ones too, as
// on a database that ran the releases before this one): each user becomes the owner of its merchant, keeps
// its password, and its open session keeps working, now a session of that membership.
import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, openPglite } from '../../src/db/database.ts';
import { migrationFiles } from '../../src/db/migrate.ts';
import { makeCredential } from '../../src/lib/credentials.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createService, type Service } from '../../src/server.ts';
import { AUDIT_SIGNING_KEY, DB_KIND, MASTER_KEY } from '../support/service.ts';

const MEMBERS = '0050_memberships';
const PASSWORD = 'an old-era password';

interface Raw {
  exec(sql: string): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

let raw: Raw;
let pglite: PGlite | undefined;
let databaseUrl: string | undefined;
let drop = async () => {};
let service: Service | undefined;

async function emptyDatabase(): Promise<Raw> {
  if (DB_KIND === 'pglite') {
    pglite = await openPglite(undefined);
    const p = pglite;
    return {
      exec: async (sql) => void (await p.exec(sql)),
      query: async (sql, params) => (await p.query<Record<string, unknown>>(sql, params)).rows,
      close: async () => {},
    };
  }
  const base = inject('pgBaseUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${base}postgres` });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  databaseUrl = `${base}${name}`;
  drop = async () => {
    const c = new pg.Client({ connectionString: `${base}postgres` });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    exec: async (sql) => void (await client.query(sql)),
    query: async (sql, params) => (await client.query(sql, params)).rows as Record<string, unknown>[],
    close: () => client.end(),
  };
}

const legacy = { merchant: 'mer_legacy0000000000000000000000', user: 'usr_legacy0000000000000000000000' };
const session = makeCredential('merchant_session');

beforeAll(async () => {
  raw = await emptyDatabase();
  await raw.exec(
    'create table schema_migrations (version text primary key, applied_at timestamptz not null default now())',
  );
  for (const { version, sql } of migrationFiles()) {
    if (version === MEMBERS) continue;
    await raw.exec(sql);
    await raw.query('insert into schema_migrations (version) values ($1)', [version]);
  }
  await raw.query("insert into merchants (id, name) values ($1, 'Legacy Goods')", [legacy.merchant]);
  await raw.query(
    "insert into users (id, merchant_id, email, password_hash, created_at) values ($1, $2, 'old@example.com', $3, '2026-01-02T03:04:05Z')",
    [legacy.user, legacy.merchant, await hashPassword(PASSWORD)],
  );
  await raw.query(
    "insert into stores (id, merchant_id, name) values ('store_legacy000000000000000000', $1, 'Legacy')",
    [legacy.merchant],
  );
  await raw.query(
    "insert into sessions (id, token_hash, user_id, merchant_id, expires_at) values ('ses_legacy0000000000000000000000', $1, $2, $3, now() + interval '1 day')",
    [session.hash, legacy.user, legacy.merchant],
  );
  await raw.close();

  // The service's own start applies what is pending: migration 0050 alone.
  const database = await openDatabase(databaseUrl ? { databaseUrl } : { pglite: pglite! });
  const config = loadConfig({
    SVC_LOG_LEVEL: 'silent',
    SVC_RATE_LIMIT: 'off',
    SVC_WORKERS: 'off',
    SVC_MASTER_KEY: MASTER_KEY,
    SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  service = await createService(config, database);
  await service.app.ready();
});

afterAll(async () => {
  await service?.close();
  await drop();
});

it('makes every user the owner of its merchant, joined when the user was made', async () => {
  const rows = await service!.ctx.db.selectFrom('memberships').selectAll().execute();
  expect(rows).toEqual([
    {
      merchant_id: legacy.merchant,
      user_id: legacy.user,
      role: 'owner',
      joined_at: new Date('2026-01-02T03:04:05Z'),
      last_active_at: null,
    },
  ]);
});

it('keeps the open session working, as the owner', async () => {
  const me = await service!.app.inject({
    url: '/api/v1/merchant/me',
    headers: { authorization: `Bearer ${session.token}` },
  });
  expect(me.statusCode).toBe(200);
  expect(me.json().data).toMatchObject({
    role: 'owner',
    user: { id: legacy.user, email: 'old@example.com', role: 'owner' },
    memberships: [{ merchant: { id: legacy.merchant, name: 'Legacy Goods' }, role: 'owner' }],
  });
});

it('signs the user in with its old password', async () => {
  const res = await service!.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login',
    payload: { email: 'old@example.com', password: PASSWORD },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json().data.merchant.id).toBe(legacy.merchant);
});
