// The parsers of settings' values for config.ts, the one reader of process.env: each takes the environment
// it is given and names the variable in the ConfigError it throws.
import { isIP } from 'node:net';

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

export function flag(env: Env, name: string, fallback: boolean, on: string, off: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === on) return true;
  if (raw === off) return false;
  throw new ConfigError(`${name} must be "${on}" or "${off}", got "${raw}"`);
}

export function schedule(env: Env): number[] {
  const raw = env.SVC_WEBHOOK_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000';
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.length === 0 || steps.some((s) => !Number.isFinite(s) || s < 0)) {
    throw new ConfigError(`SVC_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${raw}"`);
  }
  return steps;
}

export const PROXY_NAMES: ReadonlySet<string> = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `off` (the default) or a comma list; `true` or a hop count is refused: either trusts a forged header. */
export function trustProxy(env: Env): false | string[] {
  const raw = env.SVC_TRUST_PROXY?.trim();
  if (!raw || raw === 'off') return false;
  const entries = raw.split(',').map((s) => s.trim());
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk =
      bits === undefined ||
      (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32) && family !== 0);
    if (extra !== undefined || !prefixOk || (family === 0 && !PROXY_NAMES.has(entry))) {
      throw new ConfigError(
        `SVC_TRUST_PROXY must be "off" or a comma list of proxy addresses or CIDRs, got "${entry}"`,
      );
    }
  }
  return entries;
}

/** An IPv4 or IPv6 address, or one with a prefix length (a CIDR). */
export function isAddressOrCidr(entry: string): boolean {
  const [address = '', bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
}

/** SVC_EGRESS_ADDRESSES: a comma list of addresses or CIDRs; absent or empty: none declared. */
export function egressAddresses(env: Env): string[] {
  const raw = env.SVC_EGRESS_ADDRESSES?.trim();
  if (!raw) return [];
  const entries = raw.split(',').map((s) => s.trim());
  for (const entry of entries) {
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError(
        `SVC_EGRESS_ADDRESSES must be a comma list of IP addresses or CIDRs, got "${entry}"`,
      );
    }
  }
  return [...new Set(entries)];
}

export function isoTime(env: Env, name: string): Date | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const at = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(at.getTime())) {
    throw new ConfigError(`${name} must be an ISO 8601 time such as 2026-12-01T00:00:00Z, got "${raw}"`);
  }
  return at;
}

export function optionalPort(env: Env, name: string): number | undefined {
  if (env[name] === undefined || env[name] === '') return undefined;
  return int(env, name, 0, 0, 65535);
}

export function redisUrl(env: Env): string | undefined {
  const raw = env.SVC_REDIS_URL;
  if (!raw) return undefined;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('SVC_REDIS_URL must be a redis:// or rediss:// URL');
  return raw;
}

export function smtpUrl(env: Env): string | undefined {
  const raw = env.SVC_SMTP_URL;
  if (!raw) return undefined;
  if (!/^smtps?:\/\//.test(raw) || !URL.canParse(raw))
    throw new ConfigError('SVC_SMTP_URL must be an smtp:// or smtps:// URL');
  return raw;
}
