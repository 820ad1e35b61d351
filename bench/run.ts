// `npm run bench [-- options]` (`--help` lists them, and every row): the hot paths of the service, each row
// measured in rounds that alternate with a baseline of the same run on the same machine, and judged by the
// spread across rounds (lib/verdict.ts). `--scale`: instead, how cost grows with size (bench/scale/).
// A throwaway PostgreSQL, the service as its own process, and load from other processes on loopback.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startCluster, type Cluster } from '../test/support/postgres.ts';
import { Api } from './lib/api.ts';
import { helpers, missing, type Bench, type Measure, type Row } from './lib/bench.ts';
import { startChild, type Child } from './lib/child.ts';
import { postgresCpu, processCpuMs } from './lib/cpu.ts';
import { DEFAULT_DURATION, DEFAULT_ROUNDS, parseOptions, usage } from './lib/options.ts';
import { commit, host, table, writeResults } from './lib/report.ts';
import { startService, type RunningService } from './lib/service.ts';
import { enableStatements, STATEMENT_SETTINGS, topStatements, type StatementLine } from './lib/statements.ts';
import { MEASURES } from './measures/index.ts';
import { PEER_NAMES } from './lib/peers.ts';
import { CURVES, runScale } from './scale/scale.ts';

/** The memory breakdown at the highest RSS the probe (bench/tools/memory-probe.ts) saw since `since`. */
function memoryPeak(file: string, since: number): string | undefined {
  if (!existsSync(file)) return undefined;
  let best: { rss: number } | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const sample = JSON.parse(line) as { t: number; rss: number };
    if (sample.t >= since && (!best || sample.rss > best.rss)) best = sample;
  }
  return best && JSON.stringify(best);
}

const t0 = Date.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${String(Math.round((Date.now() - t0) / 1000)).padStart(3)} s] ${message}\n`);

async function createDatabases(cluster: Cluster) {
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query('create database svc');
  await admin.query('create database bench_baseline');
  await admin.end();
}

async function main() {
  const o = parseOptions(process.argv.slice(2), MEASURES, CURVES);
  if (o.help) {
    process.stdout.write(usage(MEASURES));
    return;
  }
  const started = Date.now();
  const machine = host();
  const at = new Date().toISOString();
  log(
    `${machine.nproc} CPUs (${machine.cpu}), Node ${machine.node}, load ${machine.load.start.toFixed(1)}; ` +
      `${o.measures.map((x) => x.name).join(', ')}; ${o.rounds} rounds, ${o.duration} s of load per side`,
  );
  if (o.rounds < DEFAULT_ROUNDS)
    log(`fewer than ${DEFAULT_ROUNDS} rounds: every row with a target is undecided`);

  let cluster: Cluster | undefined;
  let service: RunningService | undefined;
  let load: Child | undefined;
  const children = helpers();
  const cleanup = async () => {
    await children.stopAll();
    await load?.stop();
    await service?.stop();
    cluster?.stop();
  };
  // Interrupted (Ctrl-C, or `timeout` sending SIGTERM): stop the children and the cluster, which would
  // otherwise outlive the run.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }

  const rows: (Row & { measure: string })[] = [];
  const statements: Record<string, StatementLine[]> = {};
  const timings: Record<string, number> = {};
  try {
    // Seeding a million audit entries writes about 1 GB of WAL: without room for it, checkpoints run mid-seed.
    cluster = await startCluster({
      settings: {
        max_wal_size: "'8GB'",
        checkpoint_timeout: "'30min'",
        // --scale reads the claim statement's time from pg_stat_statements.
        ...(o.profile || o.scale ? STATEMENT_SETTINGS : {}),
      },
    });
    await createDatabases(cluster);
    if (o.profile || o.scale) await enableStatements(cluster.url('svc'));
    const profileDir = o.profile ? fileURLToPath(new URL('./results/profiles/', import.meta.url)) : undefined;
    if (profileDir) {
      rmSync(profileDir, { recursive: true, force: true });
      mkdirSync(profileDir, { recursive: true });
    }
    service = await startService(cluster.url('svc'), { profileDir });
    log(`service pid ${service.pid} at ${service.url}, RSS ${service.windowPeakRssMb().toFixed(0)} MB`);
    load = await startChild('drivers/load.ts');
    const api = new Api(service.url);
    const pgCpu = await postgresCpu(cluster.url('svc'));
    const servicePid = service.pid;
    const bench: Bench = {
      serviceCpu: () => processCpuMs(servicePid) + pgCpu(),
      postgresCpu: pgCpu,
      cluster,
      service,
      api,
      merchant: await api.signup('Bench merchant'),
      duration: o.duration,
      rounds: o.rounds,
      quick: o.quick,
      profile: o.profile,
      load,
      peers: o.peers,
      helper: children.get,
      log,
    };
    if (o.scale) {
      const out = await runScale(bench, o.scale.max, o.scale.only);
      await cleanup();
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`\n${out.text}\n\n`);
      const file = writeResults({
        at,
        host: { ...machine, load: { ...machine.load, end: loadavg()[0]! } },
        commit: commit(),
        full: false,
        options: { scale: o.scale.max, duration: o.duration },
        seconds,
        rows: [],
        scale: { max: o.scale.max, curves: out.curves, markdown: out.markdown },
      });
      process.stdout.write(`${seconds} s in all; ${file}\n`);
      return;
    }
    const measureRows = async (measure: Measure): Promise<(Row & { measure: string })[]> => {
      const rows: (Row & { measure: string })[] = [];
      const t0 = Date.now();
      try {
        rows.push(...(await measure.run(bench)).map((r) => ({ measure: measure.name, ...r })));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log(`${measure.name} failed: ${message}`);
        const quick = measure.quick;
        const specs =
          o.quick && Array.isArray(quick) ? measure.rows.filter((r) => quick.includes(r.name)) : measure.rows;
        rows.push(
          ...specs.map((spec) => ({
            measure: measure.name,
            ...missing(spec, `error: ${message.slice(0, 160)}`),
          })),
        );
      }
      if (o.profile) {
        const top = await topStatements(bench.cluster.url('svc'));
        statements[measure.name] = top;
        for (const t of top)
          log(
            `  ${t.calls} calls, ${t.total_ms} ms, ${t.mean_ms} ms each, planning ${t.plan_ms} ms: ${t.query}`,
          );
        const peak = memoryPeak(`${profileDir}memory.jsonl`, t0);
        if (peak) log(`  memory at the RSS peak: ${peak}`);
      }
      timings[measure.name] = Math.round((Date.now() - t0) / 1000);
      log(
        `${measure.name} done in ${timings[measure.name]} s; ` +
          `service RSS peak ${bench.service.windowPeakRssMb().toFixed(0)} MB`,
      );
      return rows;
    };
    // One measure at a time, but those whose rows no other process's CPU moves (Measure.beside) together
    // with their neighbours of that kind: the crash rounds and the embedded rounds took 350 of 963 s one
    // after the other.
    for (const group of besideGroups(o.measures)) {
      const done = await Promise.all(group.map((m) => measureRows(m)));
      for (const d of done) rows.push(...d);
    }
  } finally {
    await cleanup();
  }

  if (o.profile) log('CPU profile of the service in bench/results/profiles/ (open in Chrome DevTools)');
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\n${table(rows)}\n\n`);
  const file = writeResults({
    at,
    host: { ...machine, load: { ...machine.load, end: loadavg()[0]! } },
    commit: commit(),
    full:
      !o.only &&
      !o.quick &&
      !o.profile &&
      o.peers.length === PEER_NAMES.length &&
      o.rounds === DEFAULT_ROUNDS &&
      o.duration === DEFAULT_DURATION,
    options: { rounds: o.rounds, duration: o.duration, quick: o.quick, only: o.only, peers: o.peers },
    seconds,
    timings,
    rows,
    ...(o.profile ? { statements } : {}),
  });
  process.stdout.write(
    `${machine.nproc} CPUs (${machine.cpu}), Node ${machine.node}; ${seconds} s in all ` +
      `(load average ${machine.load.start.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end); ${file}\n`,
  );
}

/** The measures in order, each alone, but neighbours that run beside others (Measure.beside) in one group. */
function besideGroups(measures: readonly Measure[]): Measure[][] {
  const groups: Measure[][] = [];
  for (const m of measures) {
    const last = groups.at(-1);
    if (m.beside && last?.[0]?.beside) last.push(m);
    else groups.push([m]);
  }
  return groups;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
