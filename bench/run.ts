// `npm run bench [-- --only NAME[,NAME]] [--duration S] [--peers PEER[,PEER]]`: the hot paths of the service,
// each against a baseline measured in the same run on the same machine (absolute figures drift on a shared
// machine; ratios much less). `--peers` picks the job queues of the peer measures (graphile-worker, pg-boss,
// bullmq; all by default).
// `--scale [--scale-max N] [--only CURVE]`: instead, how cost grows with size (bench/scale/).
// A throwaway PostgreSQL, the service as its own process, and load from other processes on loopback.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startCluster, type Cluster } from '../test/support/postgres.ts';
import { Api } from './lib/api.ts';
import { helpers, missing, type Bench, type Measure, type Row } from './lib/bench.ts';
import { startChild, type Child } from './lib/child.ts';
import { machine, table, writeResults } from './lib/report.ts';
import { postgresCpu, processCpuMs } from './lib/cpu.ts';
import { startService, type RunningService } from './lib/service.ts';
import { enableStatements, STATEMENT_SETTINGS, topStatements, type StatementLine } from './lib/statements.ts';
import { publicRead } from './measures/public-read.ts';
import { publicReadLimited } from './measures/public-read-limited.ts';
import { publicWrite } from './measures/public-write.ts';
import { requestLogs } from './measures/request-logs.ts';
import { introspection } from './measures/introspection.ts';
import { token } from './measures/token.ts';
import { audit } from './measures/audit.ts';
import { auditSealer } from './measures/audit-sealer.ts';
import { deliveryThroughput } from './measures/delivery-throughput.ts';
import { deliveryLatency } from './measures/delivery-latency.ts';
import { fanout } from './measures/fanout.ts';
import { appFanout, appIngestion, appThroughput } from './measures/app-webhooks.ts';

import { deliveryPaceOrder } from './measures/delivery-pace-order.ts';
import { memory } from './measures/memory.ts';
import { webhooksList } from './measures/webhooks-list.ts';
import { peers, peersCrash, peersRetries } from './measures/peers.ts';
import { embedded } from './measures/embedded.ts';
import { PEER_NAMES, type PeerName } from './lib/peers.ts';
import { CURVES, runScale } from './scale/scale.ts';

// Memory last: it reports the peak over everything before it.
const MEASURES: readonly Measure[] = [
  publicRead,
  publicReadLimited,
  publicWrite,
  requestLogs,
  introspection,
  token,
  audit,
  auditSealer,
  deliveryThroughput,
  deliveryLatency,
  fanout,
  appFanout,
  appThroughput,
  appIngestion,

  deliveryPaceOrder,
  webhooksList,
  peers,
  peersRetries,
  peersCrash,
  embedded,
  memory,
];

function options() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      duration: { type: 'string', default: '10' },
      profile: { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      'scale-max': { type: 'string', default: '10000000' },
      peers: { type: 'string' },
    },
    allowPositionals: false,
  });
  const duration = Number(values.duration);
  if (!Number.isInteger(duration) || duration < 1 || duration > 60) {
    throw new Error('--duration must be whole seconds between 1 and 60');
  }
  const scaleMax = Number(values['scale-max']);
  if (!Number.isInteger(scaleMax) || scaleMax < 1) throw new Error('--scale-max must be a whole number');
  const names = values.only?.split(',').map((s) => s.trim());
  const known: readonly { name: string }[] = values.scale ? CURVES : MEASURES;
  const unknown = names?.filter((n) => !known.some((m) => m.name === n));
  if (unknown?.length) {
    throw new Error(`unknown name ${unknown.join(', ')}; one of ${known.map((m) => m.name).join(', ')}`);
  }
  const peers = (values.peers?.split(',').map((s) => s.trim()) ?? PEER_NAMES) as PeerName[];
  const unknownPeer = peers.filter((p) => !PEER_NAMES.includes(p));
  if (unknownPeer.length)
    throw new Error(`unknown peer ${unknownPeer.join(', ')}; one of ${PEER_NAMES.join(', ')}`);
  return {
    duration,
    peers,
    profile: values.profile,
    scale: values.scale ? { max: scaleMax, only: names } : undefined,
    measures: names ? MEASURES.filter((m) => names.includes(m.name)) : MEASURES,
  };
}

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

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function createDatabases(cluster: Cluster) {
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query('create database svc');
  await admin.query('create database bench_baseline');
  await admin.end();
}

async function main() {
  const { duration, measures, peers: peerNames, profile, scale } = options();
  const started = Date.now();
  const m = machine();
  log(
    `${m.nproc} CPUs (${m.cpu}), Node ${m.node}; ${measures.map((x) => x.name).join(', ')}; ${duration} s per run`,
  );

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

  const rows: Row[] = [];
  const statements: Record<string, StatementLine[]> = {};
  try {
    // Seeding a million audit entries writes about 1 GB of WAL: without room for it, checkpoints run mid-seed.
    cluster = await startCluster({
      settings: {
        max_wal_size: "'8GB'",
        checkpoint_timeout: "'30min'",
        // --scale reads the claim statement's time from pg_stat_statements.
        ...(profile || scale ? STATEMENT_SETTINGS : {}),
      },
    });
    await createDatabases(cluster);
    if (profile || scale) await enableStatements(cluster.url('svc'));
    const profileDir = profile ? fileURLToPath(new URL('./results/profiles/', import.meta.url)) : undefined;
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
      duration,
      profile,
      load,
      peers: peerNames,
      helper: children.get,
      log,
    };
    if (scale) {
      const out = await runScale(bench, scale.max, scale.only);
      await cleanup();
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`\n${out.text}\n\n`);
      const file = writeResults([], {
        scale: { max: scale.max, curves: out.curves, markdown: out.markdown },
        duration,
        seconds,
        at: new Date().toISOString(),
      });
      process.stdout.write(`${m.nproc} CPUs (${m.cpu}), Node ${m.node}; ${seconds} s in all; ${file}\n`);
      return;
    }
    for (const measure of measures) {
      const t0 = Date.now();
      try {
        rows.push(...(await measure.run(bench)));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log(`${measure.name} failed: ${message}`);
        rows.push(missing(measure.name, '', `error: ${message.slice(0, 160)}`));
      }
      if (profile) {
        const top = await topStatements(cluster.url('svc'));
        statements[measure.name] = top;
        for (const t of top)
          log(
            `  ${t.calls} calls, ${t.total_ms} ms, ${t.mean_ms} ms each, planning ${t.plan_ms} ms: ${t.query}`,
          );
        const peak = memoryPeak(`${profileDir}memory.jsonl`, t0);
        if (peak) log(`  memory at the RSS peak: ${peak}`);
      }
      log(
        `${measure.name} done in ${((Date.now() - t0) / 1000).toFixed(0)} s; ` +
          `service RSS peak ${service.windowPeakRssMb().toFixed(0)} MB`,
      );
    }
  } finally {
    await cleanup();
  }
  if (profile) log('CPU profile of the service in bench/results/profiles/ (open in Chrome DevTools)');
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\n${table(rows)}\n\n`);
  const file = writeResults(rows, {
    duration,
    seconds,
    at: new Date().toISOString(),
    ...(profile ? { statements } : {}),
  });
  process.stdout.write(`${m.nproc} CPUs (${m.cpu}), Node ${m.node}; ${seconds} s in all; ${file}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
