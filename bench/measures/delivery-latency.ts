// Delivery latency: a steady RATE events/s for SECONDS s (an open loop: events are sent on schedule whatever
// the answers), each timed from the start of its ingestion request to its first receipt at the receiver.
import { randomBytes } from 'node:crypto';
import { missing, row, type Measure } from '../lib/bench.ts';
import { createWebhook, eventsCall, receiver, steadyLatencies, webhooksMissing } from '../lib/webhooks.ts';

const RATE = 500;
const SECONDS = 20;
const P50 = { of: 'value', op: '<=', limit: 20 } as const;
const P99 = { of: 'value', op: '<=', limit: 100 } as const;

export const deliveryLatency: Measure = {
  name: 'delivery-latency',
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) {
      return [
        missing('delivery latency p50', 'ms', why, P50),
        missing('delivery latency p99', 'ms', why, P99),
      ];
    }
    const rx = await receiver(b);
    const m = await b.api.signup('Bench latency');
    await createWebhook(b.api, m, `${rx.url}/latency`, 'order.paid');
    const prefix = `lt${randomBytes(3).toString('hex')}_`;
    const seconds = Math.min(SECONDS, Math.max(5, b.duration * 2));
    const call = eventsCall(b, m, 'order.paid', prefix);
    const { sent, summary: s, lost } = await steadyLatencies(b, rx.child, call, RATE, seconds);
    b.log(`delivery latency: p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, ${lost} not received`);
    const note =
      `${RATE}/s for ${seconds} s (ingestion achieved ${sent.achievedRate.toFixed(0)}/s, ${sent.errors} errors)` +
      (lost ? `; ${lost} not received within 30 s after the last, counted at that time` : '');
    return [
      row('delivery latency p50', 'ms', s.p50, null, P50, note),
      row('delivery latency p99', 'ms', s.p99, null, P99, `max ${s.max.toFixed(0)} ms`),
    ];
  },
};
