// The only file that reads process.env: every setting is parsed once into a frozen, typed object, and a
// bad value stops the process with the variable's name rather than surfacing later as a strange failure.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { homedir } from 'node:os';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly publicUrl: string;
  readonly masterKey: Buffer;
  readonly internalToken: string | undefined;
  readonly signup: boolean;
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookRetentionDays: number;
  readonly cartAbandonAfter: number;
  readonly logLevel: string;
  readonly rateLimit: boolean;
  readonly sessionTtlSeconds: number;
  readonly oauth: {
    readonly codeTtl: number;
    readonly accessTokenTtl: number;
    readonly refreshTokenTtl: number;
  };
  /** Start the background loops (delivery workers, sweeps). Off for the CLI and for tests that drive them. */
  readonly workers: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function flag(env: Env, name: string, fallback: boolean, on: string, off: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === on) return true;
  if (raw === off) return false;
  throw new ConfigError(`${name} must be "${on}" or "${off}", got "${raw}"`);
}

function schedule(env: Env): number[] {
  const raw = env.SVC_WEBHOOK_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000';
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.length === 0 || steps.some((s) => !Number.isFinite(s) || s < 0)) {
    throw new ConfigError(`SVC_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${raw}"`);
  }
  return steps;
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

function decodeKey(raw: string, source: string): Buffer {
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${source} must be 32 bytes in base64`);
  return key;
}

/** On the embedded default the master key lives in the data dir, made once, so a first start needs no setup. */
function masterKey(env: Env, dataDir: string, embedded: boolean): Buffer {
  const raw = env.SVC_MASTER_KEY;
  if (raw) return decodeKey(raw, 'SVC_MASTER_KEY');
  if (!embedded) throw new ConfigError('SVC_MASTER_KEY is required when DATABASE_URL is set');
  const file = join(dataDir, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  return decodeKey(readFileSync(file, 'utf8').trim(), file);
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 4000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  const dataDir = resolve(env.SVC_DATA_DIR || './.svc-data');
  const config: Config = {
    port,
    host,
    databaseUrl,
    dataDir,
    publicUrl: publicUrl(env, host, port),
    masterKey: overrides.masterKey ?? masterKey(env, dataDir, databaseUrl === undefined),
    internalToken: env.SVC_INTERNAL_TOKEN || undefined,
    signup: flag(env, 'SVC_SIGNUP', true, 'on', 'off'),
    webhookAllowPrivate: flag(env, 'SVC_WEBHOOK_ALLOW_PRIVATE', false, '1', '0'),
    webhookRetrySchedule: schedule(env),
    webhookTimeoutMs: int(env, 'SVC_WEBHOOK_TIMEOUT_MS', 15_000, 1, 120_000),
    webhookRetentionDays: int(env, 'SVC_WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    cartAbandonAfter: int(env, 'SVC_CART_ABANDON_AFTER', 86_400, 1, 365 * 86_400),
    logLevel: env.SVC_LOG_LEVEL || 'info',
    rateLimit: flag(env, 'SVC_RATE_LIMIT', true, 'on', 'off'),
    sessionTtlSeconds: int(env, 'SVC_SESSION_TTL', 7 * 86_400, 60, 365 * 86_400),
    oauth: {
      codeTtl: int(env, 'SVC_OAUTH_CODE_TTL', 60, 1, 600),
      accessTokenTtl: int(env, 'SVC_OAUTH_ACCESS_TOKEN_TTL', 3600, 1, 86_400),
      refreshTokenTtl: int(env, 'SVC_OAUTH_REFRESH_TOKEN_TTL', 30 * 86_400, 60, 365 * 86_400),
    },
    workers: flag(env, 'SVC_WORKERS', true, 'on', 'off'),
    ...overrides,
  };
  return Object.freeze(config);
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
