// Replay by filter (API.md 12.2): how fast a replay queues, and what it does to live traffic. HISTORY events
// are recorded once; each round a new webhook subscribed to their type replays them all (`status: all`: every
// event it should have received in the window), while a steady LIVE_RATE events/s of another type flow to
// another webhook of the same merchant, each timed from its ingestion to its first receipt. The same live
// load without a replay alternates with it. The replay's deliveries are sent meanwhile (to a receiver that
// answers at once); the round's webhook is deleted after it, which cancels what it has not sent yet.
import { randomBytes } from 'node:crypto';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs, sleep } from '../lib/stats.ts';
import {
  createWebhook,
  eventsCall,
  receiver,
  steadyLatencies,
  waitFor,
  webhooksMissing,
} from '../lib/webhooks.ts';

const HISTORY = 3000;
const LIVE_RATE = 100;
const ROWS = {
  rate: {
    name: 'replay queue rate',
    unit: 'deliveries/s',
    about: `a replay of ${HISTORY.toLocaleString('en')} events (status all), from its 202 to the last delivery queued`,
    target: { of: 'value', op: '>=', limit: 1000 },
  },
  p50: {
    name: 'live delivery latency p50 during a replay',
    unit: 'ms',
    about: `${LIVE_RATE} events/s to another webhook of the merchant while the replay queues and sends: ingestion to first receipt`,
    versus: 'the same live load without a replay, same rounds',
    target: { of: 'ratio', op: '<=', limit: 1.2 },
  },
  p99: {
    name: 'live delivery latency p99 during a replay',
    unit: 'ms',
    about: 'the same rounds, 99th percentile',
    versus: 'the same live load without a replay',
  },
} as const satisfies Record<string, RowSpec>;

interface Replay {
  id: string;
  status: string;
  matched: number;
  queued: number;
}

/** One replay by a fresh webhook, with the live load beside it: its queue rate and the live latencies. */
async function replayRound(
  b: Bench,
  live: () => Promise<Awaited<ReturnType<typeof steadyLatencies>>>,
  since: string,
  url: string,
) {
  const m = b.merchant;
  const hook = await createWebhook(b.api, m, url, 'order.created');
  const path = `/api/v1/merchant/webhooks/${hook.id}/replays`;
  const during = live();
  const t0 = nowMs();
  const { data } = await b.api.expect(202, 'POST', path, { token: m.token, body: { since, status: 'all' } });
  let replay = data as Replay;
  while (replay.status === 'running') {
    await sleep(50);
    replay = (await b.api.expect(200, 'GET', `${path}/${replay.id}`, { token: m.token })).data as Replay;
  }
  const seconds = (nowMs() - t0) / 1000;
  const latencies = await during;
  await b.api.expect(204, 'DELETE', `/api/v1/merchant/webhooks/${hook.id}`, { token: m.token });
  if (replay.status !== 'done' || replay.queued !== HISTORY) {
    throw new Error(`replay ${replay.status}, ${replay.queued} of ${HISTORY} queued`);
  }
  return { rate: replay.queued / seconds, latencies };
}

export const replay: Measure = {
  name: 'replay',
  about: `a replay of ${HISTORY.toLocaleString('en')} events: its queue rate, and live deliveries' latency beside it`,
  rows: Object.values(ROWS),
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return Object.values(ROWS).map((s) => missing(s, why));
    const rx = await receiver(b);
    const m = await b.api.signup('Bench replay');
    const eb: Bench = { ...b, merchant: m };
    await createWebhook(b.api, m, `${rx.url}/history`, 'order.created');
    await createWebhook(b.api, m, `${rx.url}/live`, 'order.paid');
    const since = new Date(Date.now() - 1000).toISOString();
    const prefix = `rh${randomBytes(3).toString('hex')}_`;
    await b.load.call('burst', {
      ...eventsCall(b, m, 'order.created', prefix),
      count: HISTORY,
      concurrency: 32,
    });
    const receipts = async () =>
      Object.keys(await rx.child.call<Record<string, number>>('receipts', `evt_${prefix}`)).length;
    const recorded = await waitFor(receipts, HISTORY, 60_000, 250);
    if (recorded.at === undefined) return Object.values(ROWS).map((s) => missing(s, 'history not delivered'));
    const seconds = b.duration + 1;
    const live = () =>
      steadyLatencies(
        b,
        rx.child,
        eventsCall(b, m, 'order.paid', `rl${randomBytes(3).toString('hex')}_`),
        LIVE_RATE,
        seconds,
      );
    await live(); // the live webhook's first sends: its connections, JIT
    const rs = await inRounds(b, async (k) => ({
      during: await replayRound(eb, live, since, `${rx.url}/replayed/${k}`),
      without: await live(),
    }));
    const p = (key: 'p50' | 'p99', side: 'during' | 'without') =>
      rs.map((r) => (side === 'during' ? r.during.latencies : r.without).summary[key]);
    const rates = rs.map((r) => r.during.rate);
    b.log(
      `replay: ${range(rates)} deliveries/s queued; live p50 ${range(p('p50', 'during'))} ms against ` +
        `${range(p('p50', 'without'))}, p99 ${range(p('p99', 'during'))} against ${range(p('p99', 'without'))}`,
    );
    return [
      sampled(ROWS.rate, rates, [], `${HISTORY.toLocaleString('en')} events a round, status all`),
      sampled(ROWS.p50, p('p50', 'during'), p('p50', 'without'), `${LIVE_RATE}/s for ${seconds} s a side`),
      sampled(ROWS.p99, p('p99', 'during'), p('p99', 'without')),
    ];
  },
};
