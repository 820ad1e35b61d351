// Test services on a real database: on PGlite each service starts from the run's migrated template
// (test/support/global-setup-pglite.ts); on PostgreSQL each copies the migrated template database of the
// throwaway cluster (test/support/global-setup-pg.ts).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, openPglite, type Database } from '../../src/db/database.ts';
import { createService, type Service } from '../../src/server.ts';
import { createCompilers } from '../../src/http/compilers.ts';
import type { Clock } from '../../src/lib/time.ts';

export const DB_KIND: 'pg' | 'pglite' = process.env.SVC_TEST_DB === 'pg' ? 'pg' : 'pglite';
export const MASTER_KEY = randomBytes(32).toString('base64');
/**
 * The audit checkpoints' signing key (an Ed25519 seed) of the test services on the embedded database, which
 * would otherwise make `audit-signing.key` in the working directory's `.svc-data`. On PostgreSQL the services
 * set none and derive theirs from MASTER_KEY, as a deployment configured as API.md section 9 says does.
 */
export const AUDIT_SIGNING_KEY = randomBytes(32).toString('base64');

// What compiles the routes' schemas, shared by every service of the worker (src/http/compilers.ts): each
// schema is compiled once per worker rather than once per service.
const compilers = createCompilers();

// The template's dump, read once per worker: the files of a worker share this module (isolate: false).
let template: { file: string; dump: Promise<Blob> } | undefined;

function pgliteTemplate(): Promise<Blob> {
  const file = inject('pgliteTemplate');
  if (template?.file !== file) template = { file, dump: readFile(file).then((bytes) => new Blob([bytes])) };
  return template.dump;
}

/** A new, migrated, empty database: its URL on PostgreSQL, a start from the template's dump on PGlite. */
export async function freshDatabase(): Promise<{ url?: string; pglite?: PGlite; drop(): Promise<void> }> {
  if (DB_KIND === 'pglite') {
    const pglite = await openPglite(undefined, await pgliteTemplate());
    return { pglite, drop: async () => {} };
  }
  const base = inject('pgBaseUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${base}postgres` });
  await admin.connect();
  // Copying a template fails while anything else is connected to it (a concurrent copy, or a backend of the
  // migration still exiting): retry for a while.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`create database ${name} template svc_template`);
      break;
    } catch (err) {
      if (attempt > 100 || !String(err).includes('being accessed by other users')) throw err;
      // eslint-disable-next-line no-restricted-syntax -- a retry's jittered back-off, so concurrent copies spread out
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
  await admin.end();
  return {
    url: `${base}${name}`,
    async drop() {
      const c = new pg.Client({ connectionString: `${base}postgres` });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  overrides?: Partial<Config>;
  /** Start the background loops (delivery workers, sweeps). Off by default: tests drive them. */
  workers?: boolean;
  /** Listen on a loopback port (for receivers, real clients and browsers); `app.inject` otherwise. */
  listen?: boolean;
  /** Share the database of another test service, as a second process would. */
  shareWith?: TestService;
  /** Where the service's log lines go (set SVC_LOG_LEVEL in `env` to see them). */
  logStream?: DestinationStream;
  /** The service's clock (a test moves it rather than sleeping); the system's otherwise. */
  clock?: Clock;
}

export interface TestService extends Service {
  /** Base URL when listening. */
  url: string;
  config: Config;
  databaseUrl: string | undefined;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const shared = options.shareWith;
  const fresh = shared ? undefined : await freshDatabase();
  const databaseUrl = shared ? shared.databaseUrl : fresh!.url;
  const env = {
    SVC_LOG_LEVEL: 'silent',
    SVC_RATE_LIMIT: 'off',
    SVC_WEBHOOK_ALLOW_PRIVATE: '1',
    SVC_MASTER_KEY: MASTER_KEY,
    ...(databaseUrl ? {} : { SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY }),
    SVC_WORKERS: options.workers ? 'on' : 'off',
    PORT: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  };
  // The services of the suite hash passwords at scrypt's N = 2^10 (about 1 ms), not 2^15 (about 60 ms, one at a
  // time per process): the suite makes well over a thousand accounts and sign-ins. The service processes of
  // test/system keep the real cost, and test/lib/passwords.test.ts holds the default.
  const overrides: Partial<Config> = { passwordCost: 10, ...options.overrides };
  let config = loadConfig(env, overrides);
  let database: Database;
  if (shared && DB_KIND === 'pglite') database = shared.database;
  else database = await openDatabase({ databaseUrl, pglite: fresh?.pglite, migrated: true });

  let url = '';
  if (options.listen) {
    // The public URL must be known before the app is built (issuer, origin checks): take a free port first,
    // unless the test chose one (a public URL of its own, such as http://localhost:PORT for WebAuthn).
    const chosen = options.env?.PORT;
    const probe = chosen
      ? Number(chosen)
      : await import('node:net').then(
          (net) =>
            new Promise<number>((resolve) => {
              const s = net.createServer().listen(0, '127.0.0.1', () => {
                const port = (s.address() as { port: number }).port;
                s.close(() => resolve(port));
              });
            }),
        );
    url = options.env?.SVC_PUBLIC_URL ?? `http://127.0.0.1:${probe}`;
    config = loadConfig({ ...env, PORT: String(probe), SVC_PUBLIC_URL: url }, overrides);
  }
  const service = await createService(config, database, {
    logStream: options.logStream,
    clock: options.clock,
    compilers,
  });
  if (options.listen) await service.app.listen({ port: config.port, host: '127.0.0.1' });
  else await service.app.ready();

  const close = service.close;
  return {
    ...service,
    url,
    config,
    databaseUrl,
    async close(delayMs?: number) {
      if (shared && DB_KIND === 'pglite') {
        await service.app.close(); // the database belongs to the service it was shared from
        return;
      }
      await close(delayMs);
      await fresh?.drop();
    },
  };
}
