// Versioned migrations: the files of ./migrations in name order, each applied once, all pending ones in a
// single transaction under an advisory lock so that several processes starting together apply them once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RawSession {
  query(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Several statements in one round trip (simple query protocol). */
  script(text: string): Promise<void>;
  release(): void;
}

const DIR = join(import.meta.dirname, 'migrations');
const LOCK_ID = 7_270_001;

export function migrationFiles(): { version: string; sql: string }[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), sql: readFileSync(join(DIR, f), 'utf8') }));
}

export async function migrate(session: RawSession): Promise<string[]> {
  const applied: string[] = [];
  try {
    await session.query('begin');
    await session.query('select pg_advisory_xact_lock($1)', [LOCK_ID]);
    await session.query(
      'create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set(
      (await session.query('select version from schema_migrations')).map((r) => String(r.version)),
    );
    for (const { version, sql } of migrationFiles()) {
      if (done.has(version)) continue;
      await session.script(sql);
      await session.query('insert into schema_migrations (version) values ($1)', [version]);
      applied.push(version);
    }
    await session.query('commit');
    return applied;
  } catch (err) {
    await session.query('rollback').catch(() => {});
    throw err;
  } finally {
    session.release();
  }
}
