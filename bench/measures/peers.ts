// The service against the job queues a Node team would pick for "record an event, send it signed, retry,
// survive a crash": graphile-worker and pg-boss on the bench's PostgreSQL, BullMQ on a redis-server
// (bench/baselines/peers/). Every pipeline takes the same events over the same HTTP route and delivers them
// to the same receiver with the same signature and retry schedule (bench/lib/pipelines.ts). The pipelines
// start once; then, in each round, each pipeline in turn takes a burst with every receipt answered, and a
// burst with every tenth event's first attempt failing (the receiver picks by event id): end-to-end
// throughput (first ingestion to last first successful receipt) and CPU per delivery of its Node process and
// its store (PostgreSQL, or redis-server as it reports itself), ingestion included. The same pipelines
// SIGKILLed mid-load are the crash measure (crash.ts).
import { randomBytes } from 'node:crypto';
import { missing, sampled, type Bench, type Measure, type Row, type RowSpec } from '../lib/bench.ts';
import type { Child } from '../lib/child.ts';
import { PEER_NAMES, type PeerName } from '../lib/peers.ts';
import { startPipelines, EVENT_TYPE, type Pipeline, type PipelineName } from '../lib/pipelines.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs } from '../lib/stats.ts';
import { waitFor, webhooksMissing, type EventsCall } from '../lib/webhooks.ts';

/** Events per burst and second of `--duration`: 450 at the default, 24 bursts in all. */
const EVENTS_PER_S = 300;
const WARM_UP = 150;
const INGEST_CONCURRENCY = 64;
const FLAKY = 'flaky-';

const bar = (p: PeerName) => (p === 'bullmq' ? 0.8 : 1.2);
const throughputRow = (p: PeerName, suffix = ''): RowSpec => ({
  name: `e2e throughput vs ${p}${suffix}`,
  unit: 'deliveries/s',
  about: `the service's deliveries/s, first ingestion to last first receipt${suffix ? ', every tenth event failing once' : ''}`,
  versus: `the ${p} pipeline, same rounds`,
  target: { of: 'ratio', op: '>=', limit: bar(p) },
});
const cpuRow = (p: PeerName): RowSpec => ({
  name: `e2e CPU/delivery vs ${p}`,
  unit: 'ms',
  about: "the service's Node + PostgreSQL CPU per delivery, ingestion included",
  versus: `the ${p} pipeline's Node + store CPU, same rounds`,
});
const ROWS = {
  throughput: PEER_NAMES.map((p) => throughputRow(p)),
  cpu: PEER_NAMES.map(cpuRow),
  retries: PEER_NAMES.map((p) => throughputRow(p, ', 10% failing once')),
};

export function call(p: Pipeline, prefix: string): EventsCall {
  return { url: p.eventsUrl, token: p.token, merchantId: p.merchantId, type: EVENT_TYPE, prefix };
}

export const tag = () => randomBytes(3).toString('hex');
export const delivered = (rx: Child, prefix: string) =>
  rx.call<{ distinct: number; duplicates: number; last: number }>('delivered', `evt_${prefix}`);

interface Burst {
  rate: number;
  cpu: number;
  ingested: number;
  errors: number;
  short: number;
}

async function burst(b: Bench, rx: Child, p: Pipeline, prefix: string, count: number): Promise<Burst> {
  const cpu0 = await p.cpu();
  const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
    ...call(p, prefix),
    count,
    concurrency: INGEST_CONCURRENCY,
  });
  await waitFor(async () => (await delivered(rx, prefix)).distinct, count, 120_000, 50);
  const cpu1 = await p.cpu();
  const d = await delivered(rx, prefix);
  // Not all delivered within the wait: what was by then, a lower bound that shows as short.
  const end = d.distinct === count ? d.last : nowMs();
  return {
    rate: d.distinct / ((end - sent.started) / 1000),
    cpu: (cpu1.node + cpu1.store - cpu0.node - cpu0.store) / count,
    ingested: count / ((sent.ended - sent.started) / 1000),
    errors: sent.errors,
    short: count - d.distinct,
  };
}

function peerRows(b: Bench, figures: Map<PipelineName, { plain: Burst[]; flaky: Burst[] }>): Row[] {
  const svc = figures.get('service')!;
  const rate = (xs: Burst[]) => xs.map((x) => x.rate);
  const notes = (xs: Burst[]) =>
    `ingested at ${range(xs.map((x) => x.ingested))}/s` +
    (xs.some((x) => x.errors) ? `; ${xs.reduce((n, x) => n + x.errors, 0)} ingestion errors` : '') +
    (xs.some((x) => x.short) ? `; ${xs.reduce((n, x) => n + x.short, 0)} not delivered within 120 s` : '');
  const rows: Row[] = [];
  for (const [i, p] of PEER_NAMES.entries()) {
    const f = figures.get(p);
    if (!f) {
      rows.push(
        ...[ROWS.throughput[i]!, ROWS.cpu[i]!, ROWS.retries[i]!].map((s) => missing(s, 'not run (--peers)')),
      );
      continue;
    }
    rows.push(
      sampled(
        ROWS.throughput[i]!,
        rate(svc.plain),
        rate(f.plain),
        `service ${notes(svc.plain)}; ${p} ${notes(f.plain)}`,
      ),
      sampled(
        ROWS.cpu[i]!,
        svc.plain.map((x) => x.cpu),
        f.plain.map((x) => x.cpu),
      ),
      sampled(
        ROWS.retries[i]!,
        rate(svc.flaky),
        rate(f.flaky),
        `service ${notes(svc.flaky)}; ${p} ${notes(f.flaky)}`,
      ),
    );
  }
  b.log(
    [...figures]
      .map(([n, f]) => `${n}: ${range(rate(f.plain))}/s, ${range(f.plain.map((x) => x.cpu))} ms/delivery`)
      .join('; '),
  );
  return rows;
}

export const peers: Measure = {
  name: 'peers',
  about: 'the service against delivery pipelines on graphile-worker, pg-boss and BullMQ',
  rows: [...ROWS.throughput, ...ROWS.cpu, ...ROWS.retries],
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return peers.rows.map((s) => missing(s, why));
    // Answers under `/p/` come at once; the receiver answers the events named FLAKY as it answers under
    // `/flaky/`.
    const pipelines = await startPipelines(b, b.peers, 'p');
    const rx = pipelines.receiver;
    await rx.call('behave', { prefix: `evt_${FLAKY}`, as: 'flaky' });
    try {
      const count = EVENTS_PER_S * b.duration;
      for (const p of pipelines.all) await burst(b, rx, p, `w${tag()}_`, WARM_UP);
      const figures = new Map(
        pipelines.all.map((p) => [p.name, { plain: [] as Burst[], flaky: [] as Burst[] }]),
      );
      await inRounds(b, async () => {
        for (const p of pipelines.all)
          figures.get(p.name)!.plain.push(await burst(b, rx, p, `t${tag()}_`, count));
        for (const p of pipelines.all) {
          figures.get(p.name)!.flaky.push(await burst(b, rx, p, `${FLAKY}${tag()}_`, count));
        }
      });
      return peerRows(b, figures);
    } finally {
      await pipelines.stop();
    }
  },
};
