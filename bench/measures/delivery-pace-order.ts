// Pace and order (API.md section 11.4), each in one run:
// - per_object ordering: the same burst of events about KEYS objects delivered to an unordered webhook and to a
//   per_object one (each its merchant's only webhook), deliveries per second from the first ingestion to the
//   last success; the ordered rate against the unordered one.
// - a paced endpoint: a receiver that takes 100 requests in any one second and answers 429 beyond (the
//   receiver's `/capped/` path), a webhook with no rate_limit, and a burst of PACED_EVENTS at once: how soon the
//   successes per second settle between 90 and 105, and the rate and the share of 429s after SETTLE_S.
import { randomBytes } from 'node:crypto';
import { missing, row, type Measure, type Row } from '../lib/bench.ts';
import { nowMs, sleep } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, succeeded, waitFor, webhooksMissing } from '../lib/webhooks.ts';
import type { Bench } from '../lib/bench.ts';

const KEYS = 1000;
const ORDERED_EVENTS = 4000;
const INGEST_CONCURRENCY = 64;
const PACED_EVENTS = 3000;
const SETTLE_S = 10;
const ORDER_TARGET = { of: 'ratio', op: '>=', limit: 0.8 } as const;

/** Deliveries per second of `count` events about KEYS objects to a new webhook with `ordering`. */
async function drain(b: Bench, rxUrl: string, ordering: 'none' | 'per_object', count: number) {
  const m = await b.api.signup(`Bench ${ordering}`);
  const hook = await createWebhook(b.api, m, `${rxUrl}/${ordering}`, 'order.created', { ordering });
  const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
    ...eventsCall(b, m, 'order.created', `${ordering}${randomBytes(3).toString('hex')}_`),
    keys: KEYS,
    count,
    concurrency: INGEST_CONCURRENCY,
  });
  const done = await waitFor(() => succeeded(b.api, m, hook.id), count, 120_000, 100);
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

async function paced(b: Bench, rxUrl: string, rx: Awaited<ReturnType<typeof receiver>>): Promise<Row[]> {
  const m = await b.api.signup('Bench paced');
  const hook = await createWebhook(b.api, m, `${rxUrl}/capped/1`, 'order.created');
  await b.load.call('burst', {
    ...eventsCall(b, m, 'order.created', `paced${randomBytes(3).toString('hex')}_`),
    count: PACED_EVENTS,
    concurrency: INGEST_CONCURRENCY,
  });
  // Until every delivery succeeded, or the successes stop growing for 3 s (the rest wait for a late retry).
  let last = -1;
  let stillSince = nowMs();
  for (;;) {
    const n = await succeeded(b.api, m, hook.id);
    if (n !== last) [last, stillSince] = [n, nowMs()];
    if (n >= PACED_EVENTS || nowMs() - stillSince > 3000) break;
    await sleep(250);
  }
  const answers = await rx.child.call<Answer[]>('capped');
  if (answers.length === 0)
    return [missing('paced endpoint: deliveries/s after settling', '/s', 'no answer')];
  const t0 = answers[0]!.at;
  // The drain's pace is measured while the endpoint has a backlog: until the last event's first attempt. A
  // delivery refused near the end waits for its retry (5 s on the default schedule) with nothing else left
  // to send; those late successes are counted beside, not as seconds of pace.
  const firstAttempts = new Set<string>();
  let backlogEnd = t0;
  for (const a of answers) {
    if (firstAttempts.has(a.id)) continue;
    firstAttempts.add(a.id);
    backlogEnd = a.at;
  }
  const late = answers.filter((a) => a.ok && a.at > backlogEnd).length;
  // The whole seconds of the drain (the last, partial one aside)
  const seconds = perSecond(answers, t0).slice(0, Math.floor((backlogEnd - t0) / 1000));
  const settledAt = seconds.findIndex((_, i) => seconds.slice(i).every((n) => n >= 90 && n <= 105));
  const after = answers.filter((a) => a.at >= t0 + SETTLE_S * 1000 && a.at <= backlogEnd);
  const window = (backlogEnd - (t0 + SETTLE_S * 1000)) / 1000;
  const oks = after.filter((a) => a.ok).length;
  const refused = after.length - oks;
  const note =
    `receiver capped at 100/s, 429 beyond; ${PACED_EVENTS} events at once; ${last} succeeded, ${late} of them ` +
    `by a retry after the backlog's last first attempt; seconds: ${seconds.join(' ')}`;
  b.log(`paced endpoint: ${note}`);
  return [
    row(
      'paced endpoint: settled after',
      's',
      settledAt < 0 ? null : settledAt,
      null,
      { of: 'value', op: '<=', limit: SETTLE_S },
      settledAt < 0 ? `never settled between 90 and 105/s: ${note}` : note,
    ),
    row(`paced endpoint: deliveries/s after ${SETTLE_S} s`, '/s', window > 0 ? oks / window : null, null, {
      of: 'value',
      op: '>=',
      limit: 90,
    }),
    row(
      `paced endpoint: attempts/s after ${SETTLE_S} s`,
      '/s',
      window > 0 ? after.length / window : null,
      null,
      { of: 'value', op: '<=', limit: 105 },
    ),
    row(
      `paced endpoint: 429s after ${SETTLE_S} s`,
      '%',
      after.length > 0 ? (100 * refused) / after.length : null,
      null,
      { of: 'value', op: '<=', limit: 2 },
      `${refused} of ${after.length} attempts`,
    ),
  ];
}

export const deliveryPaceOrder: Measure = {
  name: 'delivery-pace-order',
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return [missing('per_object throughput', 'deliveries/s', why, ORDER_TARGET)];
    const rx = await receiver(b);
    const count = Math.min(ORDERED_EVENTS, b.duration * 400);
    const unordered = await drain(b, rx.url, 'none', count);
    const ordered = await drain(b, rx.url, 'per_object', count);
    b.log(`per_object: ${ordered?.toFixed(0)}/s against ${unordered?.toFixed(0)}/s unordered`);
    return [
      row(
        `per_object throughput (${KEYS.toLocaleString('en')} keys)`,
        'deliveries/s',
        ordered,
        unordered,
        ORDER_TARGET,
        `${count} events about ${KEYS} objects; baseline: the same to an unordered webhook`,
      ),
      ...(await paced(b, rx.url, rx)),
    ];
  },
};
