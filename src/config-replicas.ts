// The read replicas' settings (API.md 12.1): DATABASE_REPLICA_URL, a comma list of PostgreSQL URLs, and the
// two times that decide which reads go to them. Parsed with the rest of the configuration (src/config.ts).
import { ConfigError, int, type Env } from './config-values.ts';

export interface ReplicaSettings {
  /** The replicas' URLs, in the order given; empty: no replica, every read on the primary. */
  readonly urls: readonly string[];
  /** A replica serves lag-tolerant reads only while its replay lag is at most this (SVC_REPLICA_MAX_LAG_MS). */
  readonly maxLagMs: number;
  /** After a session or key of a merchant wrote, its reads stay on the primary this long (SVC_REPLICA_STICKY_MS). */
  readonly stickyMs: number;
}

const NAME = 'DATABASE_REPLICA_URL';

// A user and no host (`postgres://svc@/svc?host=/var/run/postgresql`, a Unix socket) is a URL to PostgreSQL
// but not to WHATWG's parser: it is checked with a host put in.
function isPostgresUrl(raw: string): boolean {
  const url = raw.replace(/^(postgres(?:ql)?:\/\/[^/@]*@)\//, '$1localhost/');
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'postgres:' || protocol === 'postgresql:';
}

/**
 * A bad URL is named by its place in the list, never quoted: a replica's URL usually carries a password. The
 * embedded database has no replica, so the setting is refused with it rather than ignored: an operator who
 * set it believes reads are spread when none would be.
 */
export function replicaSettings(env: Env, databaseUrl: string | undefined): ReplicaSettings {
  const raw = env[NAME]?.trim();
  const urls = raw ? raw.split(',').map((s) => s.trim()) : [];
  urls.forEach((url, i) => {
    const which = urls.length > 1 ? ` (URL ${i + 1} of ${urls.length})` : '';
    if (!isPostgresUrl(url))
      throw new ConfigError(`${NAME}${which} must be a postgres:// or postgresql:// URL, comma-separated`);
    if (url === databaseUrl) throw new ConfigError(`${NAME}${which} is DATABASE_URL itself, not a replica`);
    if (urls.indexOf(url) !== i) throw new ConfigError(`${NAME}${which} names the same replica twice`);
  });
  if (urls.length > 0 && databaseUrl === undefined)
    throw new ConfigError(`${NAME} needs DATABASE_URL: the embedded database has no replica`);
  return Object.freeze({
    urls: Object.freeze(urls),
    maxLagMs: int(env, 'SVC_REPLICA_MAX_LAG_MS', 2000, 0, 3_600_000),
    stickyMs: int(env, 'SVC_REPLICA_STICKY_MS', 3000, 0, 3_600_000),
  });
}
