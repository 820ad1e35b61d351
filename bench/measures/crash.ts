// The delivery pipelines of the peers measure (the service, graphile-worker, pg-boss, BullMQ: bench/lib/
// pipelines.ts), SIGKILLed mid-load: in each round every pipeline takes a steady load, is killed at once with
// the others and started again, and the acknowledged events never delivered are counted. Its rows are counts
// of lost events, which no other process's CPU can move, so the measure runs beside the others of that kind
// (Measure.beside), with pipelines, a receiver and a load process of its own.
import { PEER_NAMES } from '../lib/peers.ts';
import { missing, sampled, type Bench, type Measure, type Row, type RowSpec } from '../lib/bench.ts';
import type { Child } from '../lib/child.ts';
import { startPipelines, LEASE_MS, type Pipeline, type PipelineName } from '../lib/pipelines.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs, sleep } from '../lib/stats.ts';
import { waitFor, webhooksMissing, type SteadyRun } from '../lib/webhooks.ts';
import { call, delivered, tag } from './peers.ts';

// Four pipelines at once on two cores: 250/s each keeps attempts in flight (answers take 50 ms) without
// making the crash a test of who gets the CPU.
const CRASH_RATE = 250;
const CRASH_SECONDS = 6;
const KILL_AT_MS = 2000;
const SLOW = 'slow-';

const crashRow = (name: PipelineName): RowSpec => ({
  name: `crash: deliveries lost, ${name}`,
  unit: 'deliveries',
  about: `${CRASH_RATE} events/s, the process SIGKILLed ${KILL_AT_MS / 1000} s in and restarted: acknowledged events never delivered`,
  ...(name === 'service' ? { target: { of: 'value', op: '<=', limit: 0 } as const } : {}),
});
const NAMES = ['service', ...PEER_NAMES] as const;
const ROWS = NAMES.map(crashRow);

/** Acknowledged events never delivered within the wait, and deliveries made more than once. */
async function crash(load: Child, rx: Child, p: Pipeline) {
  const prefix = `${SLOW}c${tag()}_`;
  const sending = load.call<SteadyRun>('steady', {
    ...call(p, prefix),
    rate: CRASH_RATE,
    duration: CRASH_SECONDS,
  });
  await sleep(KILL_AT_MS);
  const killedAt = nowMs();
  await p.crashAndRestart();
  const back = (nowMs() - killedAt) / 1000;
  const sent = await sending;
  const refused = new Set(sent.failed);
  const acked = sent.sentAt.length - refused.size;
  const receipts = () => rx.call<Record<string, number>>('receipts', `evt_${prefix}`);
  const missingOf = (got: Record<string, number>) =>
    sent.sentAt.filter((_, n) => !refused.has(n) && got[`evt_${prefix}${n}`] === undefined).length;
  // A lapsed lease (or lock, or expiry) is taken again at the next poll: LEASE_MS and a margin from now, as the
  // pipeline is serving again (a lease taken before the kill has lapsed earlier still). Events that were
  // refused (or whose answer the kill cut off) may be delivered too, so the acknowledged ones are counted. The
  // margin is short: a pipeline that loses deliveries (graphile-worker's lock outlives the wait) waits it out
  // in every round; counting the restart's time in it too made each round 52 s when restarts took 20.
  await waitFor(async () => acked - missingOf(await receipts()), acked, LEASE_MS + 4000, 250);
  // Attempts cut by the kill were read by the receiver, so all may be there before a lease lapses: wait for
  // the lapse anyway (and a poll), so that each pipeline's second sends count in its duplicates.
  const lapsed = killedAt + back * 1000 + LEASE_MS + 2000 - nowMs();
  if (lapsed > 0) await sleep(lapsed);
  const lost = missingOf(await receipts());
  const d = await delivered(rx, prefix);
  return { lost, acked, refused: refused.size, duplicates: d.duplicates, back };
}

/** The rounds, every pipeline killed at once in each; a round that fails leaves the rows without figure. */
async function crashRows(b: Bench, load: Child, rx: Child, all: Pipeline[]): Promise<Row[]> {
  let crashes: Awaited<ReturnType<typeof crash>>[][];
  try {
    crashes = await inRounds(b, () => Promise.all(all.map((p) => crash(load, rx, p))));
  } catch (err) {
    const why = `error: ${err instanceof Error ? err.message : String(err)}`;
    return ROWS.map((s) => missing(s, why));
  }
  return NAMES.map((name, i) => {
    const j = all.findIndex((p) => p.name === name);
    if (j < 0) return missing(ROWS[i]!, 'not run (--peers)');
    const cs = crashes.map((c) => c[j]!);
    const note =
      `of ${cs.map((c) => c.acked).join(', ')} acknowledged (${cs.map((c) => c.refused).join(', ')} refused ` +
      `while down, serving again after ${range(cs.map((c) => c.back))} s); ` +
      `${cs.map((c) => c.duplicates).join(', ')} delivered again`;
    b.log(`${name} crash: lost ${cs.map((c) => c.lost).join(', ')}; ${note}`);
    return sampled(
      ROWS[i]!,
      cs.map((c) => c.lost),
      [],
      note,
    );
  });
}

export const crashMeasure: Measure = {
  name: 'crash',
  about: 'the pipelines of the peers measure, each SIGKILLed mid-load and restarted: events lost',
  rows: ROWS,
  beside: true,
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return ROWS.map((s) => missing(s, why));
    // The receiver answers the events named SLOW as it answers under `/slow/` (50 ms), so attempts are in
    // flight at the kill.
    const pipelines = await startPipelines(b, b.peers, 'c');
    await pipelines.receiver.call('behave', { prefix: `evt_${SLOW}`, as: 'slow' });
    try {
      const load = await b.helper('drivers/load.ts', { BENCH_LOAD_OF: 'crash' });
      return await crashRows(b, load, pipelines.receiver, pipelines.all);
    } finally {
      await pipelines.stop();
    }
  },
};
