// What every measure receives, and what it returns: rows of the result table.
import type { Cluster } from '../../test/support/postgres.ts';
import type { Api, Merchant } from './api.ts';
import { startChild, type Child } from './child.ts';
import type { PeerName } from './peers.ts';
import type { RunningService } from './service.ts';

export interface Target {
  /** What the target bounds: the ratio to the baseline, or the value itself. */
  of: 'ratio' | 'value';
  op: '>=' | '<=';
  limit: number;
}

export interface Row {
  measure: string;
  unit: string;
  value: number | null;
  baseline: number | null;
  /** value / baseline, when both exist. */
  ratio: number | null;
  target?: Target;
  /** Why a value is missing, or what it was measured on. */
  note?: string;
}

export type Verdict = 'pass' | 'short' | 'info' | 'n/a';

export function verdict(row: Row): Verdict {
  if (row.value === null) return 'n/a';
  if (!row.target) return 'info';
  const x = row.target.of === 'ratio' ? row.ratio : row.value;
  if (x === null || Number.isNaN(x)) return 'n/a';
  return (row.target.op === '>=' ? x >= row.target.limit : x <= row.target.limit) ? 'pass' : 'short';
}

export function row(
  measure: string,
  unit: string,
  value: number | null,
  baseline: number | null = null,
  target?: Target,
  note?: string,
): Row {
  const ratio = value !== null && baseline !== null && baseline !== 0 ? value / baseline : null;
  return { measure, unit, value, baseline, ratio, target, note };
}

export function missing(measure: string, unit: string, why: string, target?: Target): Row {
  return { measure, unit, value: null, baseline: null, ratio: null, target, note: why };
}

export interface Bench {
  cluster: Cluster;
  service: RunningService;
  api: Api;
  /** A merchant for the public measures (keys, carts, the OAuth app). */
  merchant: Merchant;
  /** Seconds per load run. */
  duration: number;
  /** `--profile`: pg_stat_statements is on, and a measure may log the statements of one of its phases. */
  profile: boolean;
  load: Child;
  /** The job-queue peers the peer measures run (`--peers`; all by default). */
  peers: readonly PeerName[];
  /** CPU ms so far of the service side: its Node process and the PostgreSQL cluster. */
  serviceCpu(): number;
  /** CPU ms so far of the PostgreSQL cluster alone (for baselines that use it). */
  postgresCpu(): number;
  /** Helper processes started on first use and stopped at the end of the run. */
  helper(relative: string, env?: Record<string, string>): Promise<Child>;
  log(message: string): void;
}

export interface Measure {
  name: string;
  run(b: Bench): Promise<Row[]>;
}

export function helpers(): { get: Bench['helper']; stopAll(): Promise<void> } {
  const started = new Map<string, Promise<Child>>();
  return {
    // One process per script and environment: the same baseline on two stores is two helpers.
    get(relative, env) {
      const key = `${relative} ${JSON.stringify(env ?? {})}`;
      let child = started.get(key);
      if (!child) started.set(key, (child = startChild(relative, env)));
      return child;
    },
    async stopAll() {
      const all = await Promise.allSettled([...started.values()]);
      await Promise.all(all.flatMap((r) => (r.status === 'fulfilled' ? [r.value.stop()] : [])));
    },
  };
}
