// The read replicas' settings (API.md 12.1) as src/config.ts parses them: several URLs, the defaults, and each
// bad value refused at start with the variable's name (and, for a URL, its place in the list: never the URL,
// which usually carries a password).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { replicaName } from '../../src/db/replica.ts';
import { AUDIT_SIGNING_KEY, MASTER_KEY } from '../support/service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-replica-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const PRIMARY = 'postgres://svc:secret@db.internal:5432/svc';
const base = { SVC_MASTER_KEY: MASTER_KEY, SVC_DATA_DIR: dataDir, DATABASE_URL: PRIMARY };
const load = (env: Record<string, string>) => loadConfig({ ...base, ...env });

/** The ConfigError `env` is refused with. */
function refusal(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('read replica settings', () => {
  it('none by default, with the default lag bound and stickiness', () => {
    const { replicas } = load({});
    expect(replicas).toEqual({ urls: [], maxLagMs: 2000, stickyMs: 3000 });
    expect(Object.isFrozen(replicas)).toBe(true);
  });

  it('takes several URLs, comma-separated, trimmed, in order, and the two times', () => {
    const { replicas } = load({
      DATABASE_REPLICA_URL: ' postgres://svc:secret@replica-1:5432/svc , postgresql://svc@replica-2:6432/svc',
      SVC_REPLICA_MAX_LAG_MS: '500',
      SVC_REPLICA_STICKY_MS: '0',
    });
    expect(replicas.urls).toEqual([
      'postgres://svc:secret@replica-1:5432/svc',
      'postgresql://svc@replica-2:6432/svc',
    ]);
    expect(replicas.maxLagMs).toBe(500);
    expect(replicas.stickyMs).toBe(0);
    expect(replicas.urls.map(replicaName)).toEqual(['replica-1:5432', 'replica-2:6432']);
  });

  it('names a replica by host and port, never by its credentials', () => {
    expect(replicaName('postgres://u:pw@10.0.0.7/svc')).toBe('10.0.0.7:5432');
    expect(replicaName('postgres://u@/svc?host=/var/run/postgresql&port=5433')).toBe(
      '/var/run/postgresql:5433',
    );
    // and such a URL (a Unix socket, as Debian's) is accepted
    const socket = 'postgres://svc@/svc?host=/var/run/postgresql';
    expect(load({ DATABASE_REPLICA_URL: socket }).replicas.urls).toEqual([socket]);
  });

  it('refuses a bad URL, naming the variable and its place, without quoting it', () => {
    const one = refusal({ DATABASE_REPLICA_URL: 'mysql://u:hunter2@replica/svc' });
    expect(one).toContain('DATABASE_REPLICA_URL');
    expect(one).not.toContain('hunter2');
    const second = refusal({
      DATABASE_REPLICA_URL: 'postgres://replica-1/svc,not a url:hunter2,postgres://r3/svc',
    });
    expect(second).toContain('DATABASE_REPLICA_URL (URL 2 of 3)');
    expect(second).not.toContain('hunter2');
    expect(refusal({ DATABASE_REPLICA_URL: 'postgres://replica-1/svc,' })).toContain('(URL 2 of 2)');
    expect(refusal({ DATABASE_REPLICA_URL: `${PRIMARY},postgres://r2/svc` })).toMatch(
      /DATABASE_REPLICA_URL \(URL 1 of 2\) is DATABASE_URL itself/,
    );
    expect(refusal({ DATABASE_REPLICA_URL: 'postgres://r2/svc,postgres://r2/svc' })).toContain('twice');
  });

  it('refuses a bad number, naming the variable', () => {
    for (const name of ['SVC_REPLICA_MAX_LAG_MS', 'SVC_REPLICA_STICKY_MS'])
      for (const value of ['-1', 'soon', '1.5', '3600001'])
        expect(refusal({ [name]: value })).toMatch(
          new RegExp(`^${name} must be an integer between 0 and 3600000, got "${value}"`),
        );
  });

  it('refuses replicas on the embedded database, which has none', () => {
    const message = (() => {
      try {
        loadConfig({
          SVC_MASTER_KEY: MASTER_KEY,
          SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY,
          SVC_DATA_DIR: dataDir,
          DATABASE_REPLICA_URL: 'postgres://replica-1/svc',
        });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      return 'accepted';
    })();
    expect(message).toBe('DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no replica');
  });
});
