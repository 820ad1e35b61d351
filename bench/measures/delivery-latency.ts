// Delivery latency: a steady RATE events/s (an open loop: events are sent on schedule whatever the answers),
// each timed from the start of its ingestion request to its first receipt at the receiver; p50 and p99 per
// round, each round on the run's load duration plus three seconds (2,500 events at the default).
import { randomBytes } from 'node:crypto';
import { missing, sampled, type Measure, type RowSpec } from '../lib/bench.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { createWebhook, eventsCall, receiver, steadyLatencies, webhooksMissing } from '../lib/webhooks.ts';

const RATE = 500;
const ROWS = {
  p50: {
    name: 'delivery latency p50',
    unit: 'ms',
    about: `${RATE} events/s to one webhook: ingestion request start to first receipt`,
    target: { of: 'value', op: '<=', limit: 20 },
  },
  p99: {
    name: 'delivery latency p99',
    unit: 'ms',
    about: 'the same rounds, 99th percentile',
    target: { of: 'value', op: '<=', limit: 100 },
  },
} as const satisfies Record<string, RowSpec>;

export const deliveryLatency: Measure = {
  name: 'delivery-latency',
  about: `ingestion to receipt at a steady ${RATE} events/s`,
  rows: Object.values(ROWS),
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return Object.values(ROWS).map((s) => missing(s, why));
    const rx = await receiver(b);
    const m = await b.api.signup('Bench latency');
    await createWebhook(b.api, m, `${rx.url}/latency`, 'order.paid');
    const seconds = b.duration + 3;
    const call = () => eventsCall(b, m, 'order.paid', `lt${randomBytes(3).toString('hex')}_`);
    await steadyLatencies(b, rx.child, call(), RATE, 1); // the webhook's first sends: its connections, JIT
    const rs = await inRounds(b, () => steadyLatencies(b, rx.child, call(), RATE, seconds));
    const lost = rs.reduce((n, r) => n + r.lost, 0);
    const errors = rs.reduce((n, r) => n + r.sent.errors, 0);
    b.log(
      `delivery latency: p50 ${range(rs.map((r) => r.summary.p50))}, p99 ${range(rs.map((r) => r.summary.p99))} ms`,
    );
    const note =
      `${RATE}/s for ${seconds} s a round (ingestion achieved ${range(rs.map((r) => r.sent.achievedRate))}/s` +
      `${errors ? `, ${errors} errors` : ''})` +
      (lost ? `; ${lost} not received within 30 s after the last, counted at that time` : '');
    return [
      sampled(
        ROWS.p50,
        rs.map((r) => r.summary.p50),
        [],
        note,
      ),
      sampled(
        ROWS.p99,
        rs.map((r) => r.summary.p99),
        [],
        `max ${range(rs.map((r) => r.summary.max))} ms`,
      ),
    ];
  },
};
