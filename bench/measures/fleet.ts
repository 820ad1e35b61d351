// A fleet on one PostgreSQL (API.md 12.1, issue 44): delivery throughput and CPU per delivery for each shape of
// fleet, in the same rounds: one `all` process (the baseline), and an `api` process ingesting with 1, 2 and 4
// `worker` processes delivering. Each shape has its own database on the run's cluster (so no other process
// claims its deliveries) and one merchant with WEBHOOKS webhooks on the run's receiver, so that the limit of
// attempts at once per webhook does not bound the fan-out. A round sends a burst of EVENTS events through the
// shape's API and counts from its first ingestion to its last success recorded; CPU is every process of the
// shape (Node) plus the whole cluster (PostgreSQL), per delivery.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Api } from '../lib/api.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { fleetDatabase, startService, type RunningService } from '../lib/service.ts';
import { nowMs } from '../lib/stats.ts';
import { createWebhook, receiver, waitFor, webhooksMissing } from '../lib/webhooks.ts';

const EVENTS = 400;
const WEBHOOKS = 8;
const WARM_UP = 100;

interface Shape {
  key: string;
  label: string;
  workers: number;
}

const SHAPES: readonly Shape[] = [
  { key: 'all', label: 'one all process', workers: 0 },
  { key: 'w1', label: 'api + 1 worker', workers: 1 },
  { key: 'w2', label: 'api + 2 workers', workers: 2 },
  { key: 'w4', label: 'api + 4 workers', workers: 4 },
];
const BASELINE = SHAPES[0]!;
const versus = `${BASELINE.label}, same rounds`;

const rateRow = (s: Shape): RowSpec => ({
  name: `fleet throughput, ${s.label}`,
  unit: 'deliveries/s',
  about: `${EVENTS} events to ${WEBHOOKS} webhooks: first ingestion to last success recorded`,
  ...(s === BASELINE ? {} : { versus }),
});
const cpuRow = (s: Shape): RowSpec => ({
  name: `fleet CPU/delivery, ${s.label}`,
  unit: 'ms',
  about: "the same rounds: every process of the shape plus PostgreSQL's CPU per delivery",
  ...(s === BASELINE ? {} : { versus }),
});

interface Fleet {
  shape: Shape;
  processes: RunningService[];
  ingest: { url: string; token: string; merchantId: string };
  db: pg.Pool;
}

/** The shape's processes on a database of its own, sharing one master key and internal token. */
async function startFleet(b: Bench, shape: Shape, rxUrl: string): Promise<Fleet> {
  const { url, env: shared } = await fleetDatabase(b.cluster, `bench_fleet_${shape.key}`);
  const front = await startService(url, {
    env: { ...shared, SVC_ROLE: shape.workers === 0 ? 'all' : 'api' },
  });
  const processes = [front];
  for (let i = 0; i < shape.workers; i++)
    processes.push(await startService(url, { env: { ...shared, SVC_ROLE: 'worker' } }));
  const api = new Api(front.url);
  const m = await api.signup(`Fleet ${shape.label}`);
  for (let i = 0; i < WEBHOOKS; i++)
    await createWebhook(api, m, `${rxUrl}/fleet-${shape.key}-${i}`, 'order.created');
  return {
    shape,
    processes,
    ingest: { url: `${front.url}/internal/v1/events`, token: front.internalToken, merchantId: m.merchantId },
    db: new pg.Pool({ connectionString: url, max: 1 }),
  };
}

const succeeded = async (f: Fleet) =>
  Number(
    (await f.db.query<{ n: string }>(`select count(*) as n from deliveries where status = 'succeeded'`))
      .rows[0]!.n,
  );

/** One burst through the fleet: deliveries per second and CPU ms per delivery (Node, and PostgreSQL). */
async function burst(b: Bench, f: Fleet, count: number, done: number) {
  const cpu = () => f.processes.reduce((ms, p) => ms + processCpuMs(p.pid), 0);
  const node0 = cpu();
  const db0 = b.postgresCpu();
  const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
    ...f.ingest,
    type: 'order.created',
    prefix: `fl${randomBytes(3).toString('hex')}_`,
    count,
    concurrency: 32,
  });
  const deliveries = count * WEBHOOKS;
  const finished = await waitFor(() => succeeded(f), done + deliveries, 120_000, 50);
  const got = finished.last - done;
  const seconds = ((finished.at ?? nowMs()) - sent.started) / 1000;
  const db = (b.postgresCpu() - db0) / got;
  return {
    rate: got / seconds,
    cpu: (cpu() - node0) / got + db,
    db,
    total: finished.last,
    errors: sent.errors,
  };
}

export const fleet: Measure = {
  name: 'fleet',
  about:
    'delivery throughput and CPU per delivery of an api with 1, 2 and 4 workers, against one all process',
  rows: SHAPES.flatMap((s) => [rateRow(s), cpuRow(s)]),
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return SHAPES.flatMap((s) => [missing(rateRow(s), why), missing(cpuRow(s), why)]);
    const rx = await receiver(b);
    const fleets: Fleet[] = [];
    try {
      for (const shape of SHAPES) fleets.push(await startFleet(b, shape, rx.url));
      const done = new Map<Fleet, number>();
      for (const f of fleets) done.set(f, (await burst(b, f, WARM_UP, 0)).total);
      const rounds = await inRounds(b, async () => {
        const out: Record<string, { rate: number; cpu: number; db: number; errors: number }> = {};
        for (const f of fleets) {
          const r = await burst(b, f, EVENTS, done.get(f)!);
          done.set(f, r.total);
          out[f.shape.key] = r;
        }
        return out;
      });
      const of = (s: Shape) => rounds.map((r) => r[s.key]!);
      b.log(`fleet: ${SHAPES.map((s) => `${s.label} ${range(of(s).map((r) => r.rate))}/s`).join('; ')}`);
      return SHAPES.flatMap((s) => {
        const base = s === BASELINE ? undefined : of(BASELINE);
        const errors = of(s).reduce((n, r) => n + r.errors, 0);
        return [
          sampled(
            rateRow(s),
            of(s).map((r) => r.rate),
            base?.map((r) => r.rate),
            `${EVENTS * WEBHOOKS} deliveries a round${errors ? `, ${errors} ingestion errors` : ''}`,
          ),
          sampled(
            cpuRow(s),
            of(s).map((r) => r.cpu),
            base?.map((r) => r.cpu),
            `Node ${range(of(s).map((r) => r.cpu - r.db))} + PostgreSQL ${range(of(s).map((r) => r.db))} ms`,
          ),
        ];
      });
    } finally {
      for (const f of fleets) {
        await f.db.end();
        for (const p of f.processes) await p.stop();
      }
    }
  },
};
