// The command line of `npm run bench`, and its `--help`: the options, then every measure with the rows it
// produces, what each row is and its target, from the measures' own row lists (so the two cannot drift).
import { parseArgs } from 'node:util';
import type { Measure } from './bench.ts';
import { PEER_NAMES, type PeerName } from './peers.ts';
import { targetText } from './report.ts';
import { MIN_ROUNDS } from './verdict.ts';

export const DEFAULT_ROUNDS = 3;
/** 1.5 s: at 2 s a full run took 13 minutes on the 2-core host, and CPU per operation over 1.5 s of two busy cores is still 300 /proc ticks. */
export const DEFAULT_DURATION = 1.5;

export interface Options {
  help: boolean;
  rounds: number;
  duration: number;
  quick: boolean;
  profile: boolean;
  peers: PeerName[];
  /** `--only`, as given. */
  only?: string[];
  measures: readonly Measure[];
  scale?: { max: number; only?: string[] };
}

const OPTIONS = `Usage: npm run bench -- [options]

Runs the measures below against a throwaway PostgreSQL, the service as its own process, and baselines in
the same run. Every row is measured in ${DEFAULT_ROUNDS} rounds, alternating with its baseline; its figure is the
median, and its verdict comes from the spread across rounds: met (every round on the good side of the
target), short (every round on the bad side), undecided (the rounds straddle the target), info (no target).
A ratio is figure / baseline, round by round. CPU figures are user + system time from /proc of the
service's Node process and every PostgreSQL process, per operation. Rows go to stdout and to
bench/results/<time>.json and latest.json; \`node bench/tools/performance-doc.ts\` writes docs/performance.md
from the latest full run.

Options:
  --only NAME[,NAME]   only these measures (names below)
  --quick              the rows a change most often moves, at most 3 minutes: those marked [quick]
  --rounds N           rounds per row (default ${DEFAULT_ROUNDS}; fewer than ${MIN_ROUNDS} gives no verdict, only undecided)
  --duration S         seconds of load per side in each round of the load measures (default ${DEFAULT_DURATION})
  --peers P[,P]        job-queue peers of the peers measure: ${PEER_NAMES.join(', ')} (all by default)
  --profile            also a V8 CPU profile of the service (bench/results/profiles/), its memory breakdown
                       at each measure's peak, and PostgreSQL's top statements per measure
  --scale              instead: how cost grows with size (bench/scale/), with --scale-max N and --only CURVE
  --help, -h           this text
`;

export function usage(measures: readonly Measure[]): string {
  const lines = [OPTIONS, 'Measures and their rows (unit; target; baseline):'];
  for (const m of measures) {
    lines.push('', `${m.name}${m.quick === true ? ' [quick]' : ''}: ${m.about}`);
    for (const r of m.rows) {
      const target = r.target ? targetText(r.target, r.unit) : 'no target';
      const quick = Array.isArray(m.quick) && m.quick.includes(r.name) ? ' [quick]' : '';
      lines.push(
        `  - ${r.name}${quick} (${r.unit}; ${target}${r.versus ? `; vs ${r.versus}` : ''})`,
        `      ${r.about}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

function whole(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number ${min}-${max}`);
  return n;
}

function halves(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n * 2) || n < min || n > max)
    throw new Error(`${name} must be a number of seconds ${min}-${max}, in halves`);
  return n;
}

function names(list: string | undefined): string[] | undefined {
  return list?.split(',').map((s) => s.trim());
}

export function parseOptions(
  argv: readonly string[],
  measures: readonly Measure[],
  curves: readonly { name: string }[],
): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string', default: String(DEFAULT_ROUNDS) },
      duration: { type: 'string', default: String(DEFAULT_DURATION) },
      profile: { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      'scale-max': { type: 'string', default: '10000000' },
      peers: { type: 'string' },
    },
    allowPositionals: false,
  });
  const only = names(values.only);
  const known: readonly { name: string }[] = values.scale ? curves : measures;
  const unknown = only?.filter((n) => !known.some((m) => m.name === n));
  if (unknown?.length) {
    throw new Error(`unknown name ${unknown.join(', ')}; one of ${known.map((m) => m.name).join(', ')}`);
  }
  if (values.quick && only) throw new Error('--quick and --only choose the measures both: give one');
  const peers = (names(values.peers) ?? PEER_NAMES) as PeerName[];
  const unknownPeer = peers.filter((p) => !PEER_NAMES.includes(p));
  if (unknownPeer.length) {
    throw new Error(`unknown peer ${unknownPeer.join(', ')}; one of ${PEER_NAMES.join(', ')}`);
  }
  return {
    help: values.help,
    rounds: whole('--rounds', values.rounds, 1, 20),
    duration: halves('--duration', values.duration, 1, 60),
    quick: values.quick,
    profile: values.profile,
    peers,
    ...(only ? { only } : {}),
    measures: only
      ? measures.filter((m) => only.includes(m.name))
      : values.quick
        ? measures.filter((m) => m.quick)
        : measures,
    ...(values.scale
      ? { scale: { max: whole('--scale-max', values['scale-max'], 1, 1e9), ...(only ? { only } : {}) } }
      : {}),
  };
}
