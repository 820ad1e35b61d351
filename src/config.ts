// The only file that reads process.env: every setting is parsed once into a frozen, typed object, and a
// bad value stops the process with the variable's name rather than surfacing later as a strange failure.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { PASSWORD_COST } from './lib/passwords.ts';
import { derivedSeed } from './lib/signing-keys.ts';
import {
  ConfigError,
  egressAddresses,
  flag,
  int,
  isoTime,
  optionalPort,
  redisUrl,
  schedule,
  smtpUrl,
  trustProxy,
  type Env,
} from './config-values.ts';
import { replicaSettings, type ReplicaSettings } from './config-replicas.ts';

export { ConfigError } from './config-values.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly publicUrl: string;
  /** The key that seals new secrets: the first of SVC_MASTER_KEY. */
  readonly masterKey: Buffer;
  /** Every key that may open a stored secret, the current one first (SVC_MASTER_KEY=NEW,OLD,...). */
  readonly masterKeys: readonly Buffer[];
  /**
   * Ed25519 seeds of the audit checkpoints, the signing one first (SVC_AUDIT_SIGNING_KEYS=NEW,OLD,...; with
   * PostgreSQL and without it, derived from the master keys).
   */
  readonly auditSigningKeys: readonly Buffer[];
  readonly internalToken: string | undefined;
  readonly signup: boolean;
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookRetentionDays: number;
  readonly cartAbandonAfter: number;
  /** Seconds from an app's uninstall to its store.redact, unless it is installed again (API.md 11.1). */
  readonly storeRedactAfter: number;
  readonly logLevel: string;
  readonly rateLimit: boolean;
  /**
   * The proxies whose `X-Forwarded-For` is believed (addresses, CIDRs, or proxy-addr's `loopback`,
   * `linklocal`, `uniquelocal`); `false`: the socket address is the client's.
   */
  readonly trustProxy: false | readonly string[];
  readonly sessionTtlSeconds: number;
  readonly oauth: {
    readonly codeTtl: number;
    readonly accessTokenTtl: number;
    readonly refreshTokenTtl: number;
  };
  /** Slow-client limits of the HTTP server, in ms (README, "Configuration"). */
  readonly http: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    readonly idleTimeoutMs: number;
  };
  /** `GET /metrics` on its own listener (on HOST); absent: no metrics listener. */
  readonly metricsPort: number | undefined;
  /** Public API limits per credential owner and mode: requests per second, and a bucket of `burst` seconds of it. */
  readonly publicRateLimit: {
    readonly live: number;
    readonly test: number;
    readonly burstSeconds: number;
  };
  /** Shares the public API limits across processes; absent: each process limits alone. */
  readonly redisUrl: string | undefined;
  /** Record every public call in the request log (API.md section 11.6); off only to measure what it costs. */
  readonly requestLog: boolean;
  /** Days a request log entry is kept at least: its day's partition goes once the whole day is older. */
  readonly requestLogRetentionDays: number;
  /** Start the background loops (delivery workers, sweeps). Off for the CLI and for tests that drive them. */
  readonly workers: boolean;
  /** This process's part of a fleet (API.md 12.1): HTTP and loops (`all`), HTTP (`api`) or loops (`worker`). */
  readonly role: Role;
  /** SIGTERM to exit 0, every claim finished or given back (API.md 12.1); past it, exit 1. */
  readonly shutdownGraceMs: number;
  /**
   * log2 of scrypt's N for the password hashes this process makes: 15 (OWASP's cost). Not read from the
   * environment; the tests' in-process services lower it (docs/decisions/0236-test-services-hash-passwords-cheaper.md).
   */
  readonly passwordCost: number;
  /**
   * From SIGTERM, how long the API keeps serving while /readyz answers 503 `draining`, so that a load balancer
   * takes the process out of rotation before it stops accepting (0: it stops accepting at once).
   */
  readonly shutdownDelayMs: number;
  /** Where invitation emails are sent through (`smtp://` or `smtps://`); absent: no email is sent. */
  readonly smtpUrl: string | undefined;
  /** The From of those emails. */
  readonly mailFrom: string;
  /** The addresses or CIDRs deliveries leave from, as the operator declares them (API.md section 12.2). */
  readonly egressAddresses: readonly string[];
  /** When the operator last changed them (SVC_EGRESS_ADDRESSES_UPDATED_AT); absent: the process start. */
  readonly egressUpdatedAt: Date | undefined;
  /** Read replicas for the reads that tolerate lag (API.md 12.1); none by default. */
  readonly replicas: ReplicaSettings;
}

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** Whether the process runs the background loops: not an `api` process, nor one with SVC_WORKERS=off. */
export function runsLoops(config: Config): boolean {
  return config.workers && config.role !== 'api';
}

/** Whether the process serves the HTTP interfaces: every role but `worker`. */
export function servesApi(config: Config): boolean {
  return config.role !== 'worker';
}

/** How long a stop lets work under way finish: the grace less 2 s (or half) to give back, flush and close. */
export function drainMs(config: Config): number {
  return config.shutdownGraceMs - Math.min(2000, config.shutdownGraceMs / 2);
}

/** Where a `worker` serves /healthz, /readyz and /metrics: SVC_METRICS_PORT, else PORT (it has no API there). */
export function probePort(config: Config): number {
  return config.metricsPort ?? config.port;
}

/** SVC_SHUTDOWN_DELAY_MS: at most half the grace, which must still hold the requests' and claims' stop. */
function shutdownDelay(env: Env, grace: number): number {
  const delay = int(env, 'SVC_SHUTDOWN_DELAY_MS', 0, 0, 300_000);
  if (delay > grace / 2) {
    throw new ConfigError(
      `SVC_SHUTDOWN_DELAY_MS must be at most half of SVC_SHUTDOWN_GRACE_MS (${grace}): the rest of the grace ` +
        `finishes the requests and claims under way; got ${delay}`,
    );
  }
  return delay;
}

function publicUrl(env: Env, host: string, port: number): string {
  const raw = env.SVC_PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`SVC_PUBLIC_URL must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`SVC_PUBLIC_URL must be http or https, got "${raw}"`);
  }
  // The issuer is compared by exact string in RFC 8414 and 9207: keep one canonical form without a trailing slash.
  return url.href.replace(/\/$/, '');
}

function httpTimeouts(env: Env): Config['http'] {
  const http = {
    headersTimeoutMs: int(env, 'SVC_HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: int(env, 'SVC_HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: int(env, 'SVC_HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 600_000),
    idleTimeoutMs: int(env, 'SVC_HTTP_IDLE_TIMEOUT_MS', 120_000, 100, 3_600_000),
  };
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError('SVC_HTTP_HEADERS_TIMEOUT_MS must not exceed SVC_HTTP_REQUEST_TIMEOUT_MS');
  }
  return Object.freeze(http);
}

function decodeKey(raw: string, source: string): Buffer {
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${source} must be 32 bytes in base64`);
  return key;
}

/** A comma list of 32-byte base64 keys; a bad one is named by its place in the list. */
function keyList(raw: string, source: string): Buffer[] {
  const parts = raw.split(',').map((p) => p.trim());
  return parts.map((p, i) =>
    decodeKey(p, parts.length > 1 ? `${source} (key ${i + 1} of ${parts.length})` : source),
  );
}

/**
 * On the embedded default the master key lives in the data dir, made once, so a first start needs no setup.
 * SVC_MASTER_KEY may list several keys, comma-separated: the first seals, all of them open (rotation).
 */
function masterKeys(env: Env, dataDir: string, embedded: boolean): Buffer[] {
  const raw = env.SVC_MASTER_KEY;
  if (raw) return keyList(raw, 'SVC_MASTER_KEY');
  if (!embedded) throw new ConfigError('SVC_MASTER_KEY is required when DATABASE_URL is set');
  const file = join(dataDir, 'master.key');
  return [decodeKey(generatedKeyFile(file), file)];
}

/** The content of a local key file, made with one random 32-byte key (base64) the first time. */
function generatedKeyFile(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * The Ed25519 seeds (32 bytes, base64) that sign audit checkpoints, the current one first and the others
 * after it, all published so that old checkpoints verify (docs/operations.md). From SVC_AUDIT_SIGNING_KEYS
 * when set. Otherwise, on the embedded default, from `audit-signing.key` in the data dir (made on first start;
 * the same comma list), beside the master key; with PostgreSQL, derived from the master keys, one for each
 * (`derivedSeed`): every process that shares SVC_MASTER_KEY signs with the same key, with nothing more to
 * configure, and a master-key rotation rotates it.
 */
function auditSigningKeys(env: Env, dataDir: string, embedded: boolean, master: readonly Buffer[]): Buffer[] {
  const name = 'SVC_AUDIT_SIGNING_KEYS';
  const raw = env[name];
  if (raw) return keyList(raw, name);
  if (!embedded) return master.map(derivedSeed);
  const file = join(dataDir, 'audit-signing.key');
  return keyList(generatedKeyFile(file), file);
}

/**
 * SVC_ROLE: `all` (default), `api` or `worker`. A split needs PostgreSQL: the embedded database is open in one
 * process, where an `api` would accept events no worker delivers. A `worker` with SVC_WORKERS=off runs nothing.
 */
function role(env: Env, embedded: boolean, workers: boolean): Role {
  const raw = env.SVC_ROLE;
  if (raw === undefined || raw === '') return 'all';
  if (!(ROLES as readonly string[]).includes(raw))
    throw new ConfigError(`SVC_ROLE must be "all", "api" or "worker", got "${raw}"`);
  const chosen = raw as Role;
  if (chosen !== 'all' && embedded)
    throw new ConfigError(
      `SVC_ROLE=${chosen} needs DATABASE_URL: the embedded database serves one process, which must be "all"`,
    );
  if (chosen === 'worker' && !workers)
    throw new ConfigError('SVC_ROLE=worker runs only the background loops, which SVC_WORKERS=off turns off');
  return chosen;
}

function keys(
  overrides: Partial<Config>,
  env: Env,
  dataDir: string,
  embedded: boolean,
): { masterKey: Buffer; masterKeys: readonly Buffer[] } {
  if (overrides.masterKeys) return { masterKey: overrides.masterKeys[0]!, masterKeys: overrides.masterKeys };
  if (overrides.masterKey) return { masterKey: overrides.masterKey, masterKeys: [overrides.masterKey] };
  const list = masterKeys(env, dataDir, embedded);
  return { masterKey: list[0]!, masterKeys: list };
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 4000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  const dataDir = resolve(env.SVC_DATA_DIR || './.svc-data');
  const embedded = databaseUrl === undefined;
  const master = keys(overrides, env, dataDir, embedded);
  const base = publicUrl(env, host, port);
  const workers = flag(env, 'SVC_WORKERS', true, 'on', 'off');
  const shutdownGraceMs = int(env, 'SVC_SHUTDOWN_GRACE_MS', 10_000, 100, 600_000);
  const config: Config = {
    port,
    host,
    databaseUrl,
    dataDir,
    publicUrl: base,
    ...master,
    auditSigningKeys:
      overrides.auditSigningKeys ?? auditSigningKeys(env, dataDir, embedded, master.masterKeys),
    internalToken: env.SVC_INTERNAL_TOKEN || undefined,
    signup: flag(env, 'SVC_SIGNUP', true, 'on', 'off'),
    webhookAllowPrivate: flag(env, 'SVC_WEBHOOK_ALLOW_PRIVATE', false, '1', '0'),
    webhookRetrySchedule: schedule(env),
    webhookTimeoutMs: int(env, 'SVC_WEBHOOK_TIMEOUT_MS', 15_000, 1, 120_000),
    webhookRetentionDays: int(env, 'SVC_WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    cartAbandonAfter: int(env, 'SVC_CART_ABANDON_AFTER', 86_400, 1, 365 * 86_400),
    storeRedactAfter: int(env, 'SVC_STORE_REDACT_AFTER', 172_800, 1, 365 * 86_400),
    logLevel: env.SVC_LOG_LEVEL || 'info',
    rateLimit: flag(env, 'SVC_RATE_LIMIT', true, 'on', 'off'),
    trustProxy: trustProxy(env),
    sessionTtlSeconds: int(env, 'SVC_SESSION_TTL', 7 * 86_400, 60, 365 * 86_400),
    oauth: {
      codeTtl: int(env, 'SVC_OAUTH_CODE_TTL', 60, 1, 600),
      accessTokenTtl: int(env, 'SVC_OAUTH_ACCESS_TOKEN_TTL', 3600, 1, 86_400),
      refreshTokenTtl: int(env, 'SVC_OAUTH_REFRESH_TOKEN_TTL', 30 * 86_400, 60, 365 * 86_400),
    },
    http: httpTimeouts(env),
    workers,
    role: role(env, embedded, workers),
    shutdownGraceMs,
    passwordCost: PASSWORD_COST,
    shutdownDelayMs: shutdownDelay(env, shutdownGraceMs),
    requestLog: flag(env, 'SVC_REQUEST_LOG', true, 'on', 'off'),
    requestLogRetentionDays: int(env, 'SVC_REQUEST_LOG_RETENTION_DAYS', 7, 1, 365),
    metricsPort: optionalPort(env, 'SVC_METRICS_PORT'),
    publicRateLimit: {
      live: int(env, 'SVC_RATE_LIMIT_LIVE', 100, 1, 1_000_000_000),
      test: int(env, 'SVC_RATE_LIMIT_TEST', 25, 1, 1_000_000_000),
      burstSeconds: int(env, 'SVC_RATE_LIMIT_BURST', 2, 1, 3600),
    },
    redisUrl: redisUrl(env),
    smtpUrl: smtpUrl(env),
    mailFrom: env.SVC_MAIL_FROM || `svc <no-reply@${new URL(base).hostname}>`,
    egressAddresses: egressAddresses(env),
    egressUpdatedAt: isoTime(env, 'SVC_EGRESS_ADDRESSES_UPDATED_AT'),
    replicas: replicaSettings(env, databaseUrl),
    ...overrides,
  };
  return Object.freeze(config);
}

/** The configuration of the environment with some variables set otherwise (`svc start --role`). */
export function loadConfigWith(extra: Env): Config {
  return loadConfig({ ...process.env, ...extra });
}

/** What the `svc` commands that talk to a running service read from the environment. */
export interface CliConfig {
  /** Where `svc login` keeps the session: $XDG_CONFIG_HOME/svc, or ~/.config/svc. */
  readonly configDir: string;
  /** SVC_API_URL: the service to talk to when no --api-url is given. */
  readonly apiUrl: string | undefined;
}

export function loadCliConfig(env: Env = process.env): CliConfig {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  const apiUrl = env.SVC_API_URL || undefined;
  if (apiUrl !== undefined && !URL.canParse(apiUrl))
    throw new ConfigError('SVC_API_URL must be an absolute URL, e.g. http://127.0.0.1:4000.');
  return Object.freeze({ configDir: join(resolve(base), 'svc'), apiUrl });
}
