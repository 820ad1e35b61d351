// Dashboard list reads with a read replica against without (API.md 12.1, issue 44): the events list of a merchant
// with 2,000 events, read by two service processes on one database of the run's cluster, one of them with a
// streaming standby of the cluster as DATABASE_REPLICA_URL (no stickiness, so every read of the page may go
// there), in the same rounds. The rows are what the primary pays per read (the cluster's CPU: the standby is
// another postmaster, not counted) and the p50 a reader sees; the replica's own CPU is the price, on another
// machine in production.
import type { LoadResult } from '../drivers/load.ts';
import { Api } from '../lib/api.ts';
import { missing, sampled, type Measure, type RowSpec } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { alternate, meteredRun, range } from '../lib/rounds.ts';
import { fleetDatabase, startService, type RunningService } from '../lib/service.ts';
import { startStandby, type Standby } from '../../test/support/standby.ts';

const DATABASE = 'bench_replica';
const EVENTS = 2000;
const CONNECTIONS = 8;
const PATH = '/api/v1/merchant/events?limit=50';
const versus = 'the same reads on a process without a replica, same rounds';

const ROWS = {
  primary: {
    name: 'events list: primary CPU/read, with a replica',
    unit: 'ms',
    about: `GET ${PATH} (${EVENTS} events), ${CONNECTIONS} connections: the primary cluster's CPU per read`,
    versus,
  },
  p50: {
    name: 'events list p50, with a replica',
    unit: 'ms',
    about: 'the same reads: median latency',
    versus,
  },
} as const satisfies Record<string, RowSpec>;

export const replicaReads: Measure = {
  name: 'replica-reads',
  about: 'the events list read through a streaming replica, against the primary alone',
  rows: Object.values(ROWS),
  async run(b) {
    const { url, env: shared } = await fleetDatabase(b.cluster, DATABASE);
    const processes: RunningService[] = [];
    let standby: Standby | undefined;
    try {
      const alone = await startService(url, { env: shared });
      processes.push(alone);
      const api = new Api(alone.url);
      const m = await api.signup('Replica reads');
      await b.load.call('burst', {
        url: `${alone.url}/internal/v1/events`,
        token: alone.internalToken,
        merchantId: m.merchantId,
        type: 'order.created',
        prefix: 'rr_',
        count: EVENTS,
        concurrency: 32,
      });
      try {
        standby = await startStandby(b.cluster, DATABASE);
      } catch (err) {
        return Object.values(ROWS).map((s) =>
          missing(s, `no standby: ${(err as Error).message.slice(0, 200)}`),
        );
      }
      const withReplica = await startService(url, {
        env: { ...shared, DATABASE_REPLICA_URL: standby.url, SVC_REPLICA_STICKY_MS: '0' },
      });
      processes.push(withReplica);
      const read = (p: RunningService) => () =>
        meteredRun(
          () => processCpuMs(p.pid) + b.postgresCpu(),
          () =>
            b.load.call<LoadResult>('cannon', {
              url: p.url + PATH,
              headers: { authorization: `Bearer ${m.token}` },
              connections: CONNECTIONS,
              duration: b.duration,
            }),
          b.postgresCpu,
        );
      for (const p of processes) await read(p)(); // warm: plans, pools, the replica's lag probe
      const r = await alternate(b, { replica: read(withReplica), alone: read(alone) });
      const primary = (rs: LoadResult[]) => rs.map((x) => x.dbCpuPerOp ?? null);
      b.log(
        `replica reads: primary CPU/read ${range(r.replica.map((x) => x.dbCpuPerOp ?? 0))} ms with a replica, ` +
          `${range(r.alone.map((x) => x.dbCpuPerOp ?? 0))} ms without`,
      );
      return [
        sampled(
          ROWS.primary,
          primary(r.replica),
          primary(r.alone),
          `reads/s ${range(r.replica.map((x) => x.rps))} against ${range(r.alone.map((x) => x.rps))}`,
        ),
        sampled(
          ROWS.p50,
          r.replica.map((x) => x.p50),
          r.alone.map((x) => x.p50),
        ),
      ];
    } finally {
      for (const p of processes) await p.stop();
      standby?.remove();
    }
  },
};
