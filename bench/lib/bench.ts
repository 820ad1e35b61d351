// What every measure receives, and what it returns: rows of the result table, each with the figure of every
// round, so that the table can print a spread and judge it (lib/verdict.ts).
import type { Cluster } from '../../test/support/postgres.ts';
import type { Api, Merchant } from './api.ts';
import { startChild, type Child } from './child.ts';
import type { PeerName } from './peers.ts';
import type { RunningService } from './service.ts';
import { finite, judge, median, spreadOf, type Spread, type Target, type Verdict } from './verdict.ts';

export type { Target, Verdict } from './verdict.ts';

/** A row as `--help` lists it and as a measure fills it in. */
export interface RowSpec {
  name: string;
  unit: string;
  /** One line: what the figure is. */
  about: string;
  /** What the ratio is taken against, when there is a baseline. */
  versus?: string;
  target?: Target;
}

export interface Row {
  name: string;
  unit: string;
  /** Median of the rounds' figures. */
  value: number | null;
  /** Each round's figure, in the order run. */
  rounds: number[];
  versus?: string;
  baseline: number | null;
  /** The same-run baseline's figure in each round (round k of the baseline ran next to round k). */
  baselineRounds: number[];
  /** Median of the rounds' ratios figure / baseline. */
  ratio: number | null;
  ratioRounds: number[];
  target?: Target;
  /** Min and max across rounds of what the verdict judges: the ratio for a ratio target, else the figure. */
  spread: Spread | null;
  verdict: Verdict;
  /** Why a figure is missing, or what it was measured on. */
  note?: string;
}

type Sample = number | null | undefined;

/** A row from its rounds: `values[k]` measured next to `baselines[k]`. */
export function sampled(
  spec: RowSpec,
  values: readonly Sample[],
  baselines: readonly Sample[] = [],
  note?: string,
): Row {
  const rounds = finite(values);
  const baselineRounds = finite(baselines);
  const ratioRounds = finite(
    values.map((v, k) => {
      const base = baselines[k];
      return typeof v === 'number' && typeof base === 'number' && base !== 0 ? v / base : null;
    }),
  );
  const judged = spec.target?.of === 'ratio' ? ratioRounds : rounds;
  return {
    name: spec.name,
    unit: spec.unit,
    value: median(rounds),
    rounds,
    ...(spec.versus ? { versus: spec.versus } : {}),
    baseline: median(baselineRounds),
    baselineRounds,
    ratio: median(ratioRounds),
    ratioRounds,
    ...(spec.target ? { target: spec.target } : {}),
    spread: spreadOf(spec.target ? judged : rounds),
    verdict: rounds.length ? judge(judged, spec.target) : 'n/a',
    ...(note ? { note } : {}),
  };
}

export function missing(spec: RowSpec, why: string): Row {
  return sampled(spec, [], [], why);
}

export interface Bench {
  cluster: Cluster;
  service: RunningService;
  api: Api;
  /** A merchant for the public measures (keys, carts, the OAuth app). */
  merchant: Merchant;
  /** Seconds of load per side in each round. */
  duration: number;
  /** Rounds of every row (`--rounds`, at least MIN_ROUNDS for a verdict). */
  rounds: number;
  /** `--quick`: a measure leaves out its slow rows that are not in the quick set (its `quick` says which). */
  quick: boolean;
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
  /** One line for `--help`: what it runs, against what. */
  about: string;
  /** Every row it can produce, in order. */
  rows: readonly RowSpec[];
  /**
   * In `--quick` (the rows a change is most likely to move, within 3 minutes in all): `true` for all its rows,
   * or the names of those it produces then.
   */
  quick?: true | readonly string[];
  /**
   * Its rows are memory of its own processes or counts of lost work, which the CPU of other processes does not
   * move: it runs at the same time as the measures next to it in the run's order that say so too.
   */
  beside?: true;
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
