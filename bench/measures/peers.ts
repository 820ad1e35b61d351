// The service against the job queues a Node team would pick for "record an event, send it signed, retry,
// survive a crash": graphile-worker and pg-boss on the bench's PostgreSQL, BullMQ on a redis-server
// (bench/baselines/peers/). Every pipeline takes the same events over the same HTTP route and delivers them
// to the same receiver with the same signature and retry schedule (bench/lib/pipelines.ts). The pipelines
// start once; then, in each round, each pipeline in turn takes a burst with every receipt answered, and a
// burst with every tenth event's first attempt failing (the receiver picks by event id): end-to-end
// throughput (first ingestion to last first successful receipt) and CPU per delivery of its Node process and
// its store (PostgreSQL, or redis-server as it reports itself), ingestion included. Last, each round SIGKILLs
// every pipeline mid-load, all at once (a count of lost events is not a cost the neighbours can move), and
// counts the acknowledged events never delivered.
import { randomBytes } from 'node:crypto';
import { missing, sampled, type Bench, type Measure, type Row, type RowSpec } from '../lib/bench.ts';
import type { Child } from '../lib/child.ts';
import { PEER_NAMES, type PeerName } from '../lib/peers.ts';
import { startPipelines, EVENT_TYPE, LEASE_MS, type Pipeline, type PipelineName } from '../lib/pipelines.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs, sleep } from '../lib/stats.ts';
import { waitFor, webhooksMissing, type EventsCall, type SteadyRun } from '../lib/webhooks.ts';

/** Events per burst and second of `--duration`: 1,000 at the default, 24 bursts in all. */
const EVENTS_PER_S = 500;
const WARM_UP = 300;
const INGEST_CONCURRENCY = 64;
// Four pipelines at once on two cores: 250/s each keeps attempts in flight (answers take 50 ms) without
// making the crash a test of who gets the CPU.
const CRASH_RATE = 250;
const CRASH_SECONDS = 6;
const KILL_AT_MS = 2000;
const FLAKY = 'flaky-';
const SLOW = 'slow-';

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
const crashRow = (name: PipelineName): RowSpec => ({
  name: `crash: deliveries lost, ${name}`,
  unit: 'deliveries',
  about: `${CRASH_RATE} events/s, the process SIGKILLed ${KILL_AT_MS / 1000} s in and restarted: acknowledged events never delivered`,
  ...(name === 'service' ? { target: { of: 'value', op: '<=', limit: 0 } as const } : {}),
});
const ROWS = {
  throughput: PEER_NAMES.map((p) => throughputRow(p)),
  cpu: PEER_NAMES.map(cpuRow),
  retries: PEER_NAMES.map((p) => throughputRow(p, ', 10% failing once')),
  crash: (['service', ...PEER_NAMES] as const).map(crashRow),
};

function call(p: Pipeline, prefix: string): EventsCall {
  return { url: p.eventsUrl, token: p.token, merchantId: p.merchantId, type: EVENT_TYPE, prefix };
}

const tag = () => randomBytes(3).toString('hex');
const delivered = (rx: Child, prefix: string) =>
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

/** Acknowledged events never delivered within the wait, and deliveries made more than once. */
async function crash(b: Bench, rx: Child, p: Pipeline) {
  const prefix = `${SLOW}c${tag()}_`;
  const load = b.load.call<SteadyRun>('steady', {
    ...call(p, prefix),
    rate: CRASH_RATE,
    duration: CRASH_SECONDS,
  });
  await sleep(KILL_AT_MS);
  const killedAt = nowMs();
  await p.crashAndRestart();
  const back = (nowMs() - killedAt) / 1000;
  const sent = await load;
  const refused = new Set(sent.failed);
  const acked = sent.sentAt.length - refused.size;
  const receipts = () => rx.call<Record<string, number>>('receipts', `evt_${prefix}`);
  const missingOf = (got: Record<string, number>) =>
    sent.sentAt.filter((_, n) => !refused.has(n) && got[`evt_${prefix}${n}`] === undefined).length;
  // A lapsed lease (or lock, or expiry) is taken again at the next poll: LEASE_MS and a margin. Events that
  // were refused (or whose answer the kill cut off) may be delivered too, so the acknowledged ones are counted.
  await waitFor(async () => acked - missingOf(await receipts()), acked, LEASE_MS + 20_000, 250);
  // Attempts cut by the kill were read by the receiver, so all may be there before a lease lapses: wait for
  // the lapse anyway (and a poll), so that each pipeline's second sends count in its duplicates.
  const lapsed = killedAt + back * 1000 + LEASE_MS + 2000 - nowMs();
  if (lapsed > 0) await sleep(lapsed);
  const lost = missingOf(await receipts());
  const d = await delivered(rx, prefix);
  return { lost, acked, refused: refused.size, duplicates: d.duplicates, back };
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

/** The crash rounds, every pipeline killed at once in each; a round that fails leaves the rows without figure. */
async function crashRows(b: Bench, rx: Child, all: Pipeline[]): Promise<Row[]> {
  const names = ['service', ...PEER_NAMES] as const;
  let crashes: Awaited<ReturnType<typeof crash>>[][];
  try {
    crashes = await inRounds(b, () => Promise.all(all.map((p) => crash(b, rx, p))));
  } catch (err) {
    const why = `error: ${err instanceof Error ? err.message : String(err)}`;
    return ROWS.crash.map((s) => missing(s, why));
  }
  return names.map((name, i) => {
    const j = all.findIndex((p) => p.name === name);
    if (j < 0) return missing(ROWS.crash[i]!, 'not run (--peers)');
    const cs = crashes.map((c) => c[j]!);
    const note =
      `of ${cs.map((c) => c.acked).join(', ')} acknowledged (${cs.map((c) => c.refused).join(', ')} refused ` +
      `while down, serving again after ${range(cs.map((c) => c.back))} s); ` +
      `${cs.map((c) => c.duplicates).join(', ')} delivered again`;
    b.log(`${name} crash: lost ${cs.map((c) => c.lost).join(', ')}; ${note}`);
    return sampled(
      ROWS.crash[i]!,
      cs.map((c) => c.lost),
      [],
      note,
    );
  });
}

export const peers: Measure = {
  name: 'peers',
  about: 'the service against delivery pipelines on graphile-worker, pg-boss and BullMQ, and each SIGKILLed',
  rows: [...ROWS.throughput, ...ROWS.cpu, ...ROWS.retries, ...ROWS.crash],
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return peers.rows.map((s) => missing(s, why));
    // Answers under `/p/` come at once; the receiver answers the events named FLAKY and SLOW as it answers
    // under `/flaky/` and `/slow/` (the crash's answers take 50 ms, so attempts are in flight at the kill).
    const pipelines = await startPipelines(b, b.peers, 'p');
    const rx = pipelines.receiver;
    await rx.call('behave', { prefix: `evt_${FLAKY}`, as: 'flaky' });
    await rx.call('behave', { prefix: `evt_${SLOW}`, as: 'slow' });
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
      const rows = peerRows(b, figures);
      rows.push(...(await crashRows(b, rx, pipelines.all)));
      return rows;
    } finally {
      await pipelines.stop();
    }
  },
};
