// Pace and order (API.md section 11.4):
// - per_object ordering: in each round, the same burst of events about KEYS objects delivered to an unordered
//   webhook and to a per_object one (each its merchant's only webhook), deliveries per second from the first
//   ingestion to the last success; the ordered rate against the unordered one.
// - a paced endpoint: a receiver path that takes 100 requests in any one second and answers 429 beyond (the
//   receiver's `/capped/<n>`), a webhook with no rate_limit, and a burst of PACED_EVENTS at once: how soon the
//   successes per second settle between 90 and 105, and the rate and the share of 429s after SETTLE_S. The
//   rounds of the paced endpoint run side by side, each its own merchant, webhook and capped path: a drain
//   at 100/s takes PACED_EVENTS / 100 s whatever the machine does, and three in a row would take a minute.
import { randomBytes } from 'node:crypto';
import { missing, sampled, type Bench, type Measure, type Row, type RowSpec } from '../lib/bench.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs, sleep } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, succeeded, waitFor, webhooksMissing } from '../lib/webhooks.ts';

const KEYS = 1000;
const EVENTS_PER_S = 1000;
const INGEST_CONCURRENCY = 64;
const PACED_EVENTS = 1800;
const SETTLE_S = 10;

const ROWS = {
  order: {
    name: `per_object throughput (${KEYS.toLocaleString('en')} keys)`,
    unit: 'deliveries/s',
    about: `a burst of events about ${KEYS} objects to a per_object webhook`,
    versus: 'the same burst to an unordered webhook, same rounds',
    target: { of: 'ratio', op: '>=', limit: 0.8 },
  },
  settled: {
    name: 'paced endpoint: settled after',
    unit: 's',
    about: `${PACED_EVENTS} events at once to an endpoint taking 100/s (429 beyond): the second from which every second has 90-105 successes`,
    target: { of: 'value', op: '<=', limit: SETTLE_S },
  },
  rate: {
    name: `paced endpoint: deliveries/s after ${SETTLE_S} s`,
    unit: '/s',
    about: 'the same endpoint: successes per second while its backlog lasts',
    target: { of: 'value', op: '>=', limit: 90 },
  },
  attempts: {
    name: `paced endpoint: attempts/s after ${SETTLE_S} s`,
    unit: '/s',
    about: 'the same endpoint: attempts (204 and 429) per second',
    target: { of: 'value', op: '<=', limit: 105 },
  },
  refused: {
    name: `paced endpoint: 429s after ${SETTLE_S} s`,
    unit: '%',
    about: 'the same endpoint: the share of attempts refused',
    target: { of: 'value', op: '<=', limit: 2 },
  },
} as const satisfies Record<string, RowSpec>;

interface Stream {
  m: Awaited<ReturnType<Bench['api']['signup']>>;
  hookId: string;
  done: number;
}

async function stream(b: Bench, rxUrl: string, ordering: 'none' | 'per_object'): Promise<Stream> {
  const m = await b.api.signup(`Bench ${ordering}`);
  const hook = await createWebhook(b.api, m, `${rxUrl}/${ordering}`, 'order.created', { ordering });
  return { m, hookId: hook.id, done: 0 };
}

/** Deliveries per second of `count` events about KEYS objects to the stream's webhook. */
async function drain(b: Bench, s: Stream, count: number): Promise<number | null> {
  const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
    ...eventsCall(b, s.m, 'order.created', `o${randomBytes(3).toString('hex')}_`),
    keys: KEYS,
    count,
    concurrency: INGEST_CONCURRENCY,
  });
  const done = await waitFor(() => succeeded(b.api, s.m, s.hookId), s.done + count, 120_000, 50);
  s.done = done.last;
  return done.at === undefined ? null : count / ((done.at - sent.started) / 1000);
}

interface Answer {
  at: number;
  ok: boolean;
  id: string;
}

/** Successes per whole second from the first answer on. */
function perSecond(answers: readonly Answer[], from: number): number[] {
  const buckets: number[] = [];
  for (const a of answers) {
    if (!a.ok) continue;
    const i = Math.floor((a.at - from) / 1000);
    while (buckets.length <= i) buckets.push(0);
    buckets[i]!++;
  }
  return buckets;
}

/** One paced endpoint: its burst, its drain, and the figures of its answers. */
async function paced(b: Bench, rx: Awaited<ReturnType<typeof receiver>>, n: number) {
  const m = await b.api.signup(`Bench paced ${n}`);
  const path = `/capped/${n}`;
  const hook = await createWebhook(b.api, m, `${rx.url}${path}`, 'order.created');
  await b.load.call('burst', {
    ...eventsCall(b, m, 'order.created', `paced${randomBytes(3).toString('hex')}_`),
    count: PACED_EVENTS,
    concurrency: INGEST_CONCURRENCY,
  });
  // Until every delivery succeeded, or the successes stop growing for 3 s (the rest wait for a late retry).
  let last = -1;
  let stillSince = nowMs();
  for (;;) {
    const got = await succeeded(b.api, m, hook.id);
    if (got !== last) [last, stillSince] = [got, nowMs()];
    if (got >= PACED_EVENTS || nowMs() - stillSince > 3000) break;
    await sleep(250);
  }
  const answers = await rx.child.call<Answer[]>('capped', path);
  const t0 = answers[0]?.at ?? 0;
  // The drain's pace is measured while the endpoint has a backlog: until the last event's first attempt. A
  // delivery refused near the end waits for its retry (5 s on the default schedule) with nothing else left
  // to send; those late successes are not seconds of pace.
  const firstAttempts = new Set<string>();
  let backlogEnd = t0;
  for (const a of answers) {
    if (firstAttempts.has(a.id)) continue;
    firstAttempts.add(a.id);
    backlogEnd = a.at;
  }
  // The whole seconds of the drain (the last, partial one aside)
  const seconds = perSecond(answers, t0).slice(0, Math.floor((backlogEnd - t0) / 1000));
  const settledAt = seconds.findIndex((_, i) => seconds.slice(i).every((x) => x >= 90 && x <= 105));
  const after = answers.filter((a) => a.at >= t0 + SETTLE_S * 1000 && a.at <= backlogEnd);
  const window = (backlogEnd - (t0 + SETTLE_S * 1000)) / 1000;
  const oks = after.filter((a) => a.ok).length;
  return {
    // Never settled: the seconds the drain lasted, a lower bound of when it would have.
    settled: answers.length ? (settledAt >= 0 ? settledAt : seconds.length) : null,
    rate: window > 0 ? oks / window : null,
    attempts: window > 0 ? after.length / window : null,
    refused: after.length ? (100 * (after.length - oks)) / after.length : null,
    seconds: seconds.join(' '),
  };
}

export const deliveryPaceOrder: Measure = {
  name: 'delivery-pace-order',
  about: 'per_object ordering against unordered, and the pace learned for an endpoint that takes 100/s',
  rows: Object.values(ROWS),
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return Object.values(ROWS).map((s) => missing(s, why));
    const rx = await receiver(b);
    const count = EVENTS_PER_S * b.duration;
    const unordered = await stream(b, rx.url, 'none');
    const ordered = await stream(b, rx.url, 'per_object');
    const rs = await inRounds(b, async () => ({
      unordered: await drain(b, unordered, count),
      ordered: await drain(b, ordered, count),
    }));
    b.log(
      `per_object: ${range(rs.map((r) => r.ordered ?? NaN))}/s against ${range(rs.map((r) => r.unordered ?? NaN))}/s`,
    );
    const rows: Row[] = [
      sampled(
        ROWS.order,
        rs.map((r) => r.ordered),
        rs.map((r) => r.unordered),
        `${count} events about ${KEYS} objects a round`,
      ),
    ];
    const ps = await Promise.all(Array.from({ length: b.rounds }, (_, k) => paced(b, rx, k)));
    const note = `${PACED_EVENTS} events at once to each of ${b.rounds} endpoints side by side; successes per second: ${ps.map((p) => `[${p.seconds}]`).join(' ')}`;
    b.log(`paced endpoint: ${note}`);
    rows.push(
      sampled(
        ROWS.settled,
        ps.map((p) => p.settled),
        [],
        note,
      ),
      sampled(
        ROWS.rate,
        ps.map((p) => p.rate),
      ),
      sampled(
        ROWS.attempts,
        ps.map((p) => p.attempts),
      ),
      sampled(
        ROWS.refused,
        ps.map((p) => p.refused),
      ),
    );
    return rows;
  },
};
