// Fan-out: one event for a merchant with WEBHOOKS webhooks subscribed to it. The ingestion route answers 202
// once the event and every delivery are committed, so its answer time (from a warm connection) is the time to
// commit all deliveries. ROUNDS rounds; the deliveries of one round drain before the next.
import { request } from 'undici';
import { inParallel } from '../lib/api.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { nowMs, summarise } from '../lib/stats.ts';
import { createWebhook, receiver, waitFor, webhooksMissing } from '../lib/webhooks.ts';
import { sampleData } from '../../src/modules/events/index.ts';

const WEBHOOKS = 1000;
const ROUNDS = 5;
const TARGET = { of: 'value', op: '<=', limit: 50 } as const;

export const fanout: Measure = {
  name: 'fanout',
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return [missing('fan-out 1,000 webhooks', 'ms', why, TARGET)];
    const rx = await receiver(b);
    const m = await b.api.signup('Bench fan-out');
    await inParallel(
      Array.from({ length: WEBHOOKS }, (_, i) => i),
      8,
      (i) => createWebhook(b.api, m, `${rx.url}/fanout/${i}`, 'product.created'),
    );
    const times: number[] = [];
    let created = 0;
    let drained = true;
    for (let round = 0; round < ROUNDS && drained; round++) {
      const before = (await rx.child.call<{ received: number }>('count')).received;
      const t0 = nowMs();
      const res = await request(`${b.service.url}/internal/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${b.service.internalToken}` },
        body: JSON.stringify({
          merchant_id: m.merchantId,
          mode: 'test',
          type: 'product.created',
          data: { ...sampleData('product.created'), id: `prod_${round}` },
        }),
      });
      const body = (await res.body.json()) as { data?: { deliveries?: number } };
      times.push(nowMs() - t0);
      created = body.data?.deliveries ?? 0;
      if (res.statusCode !== 202 || created !== WEBHOOKS) break;
      const rx2 = rx.child;
      drained =
        (
          await waitFor(
            async () => (await rx2.call<{ received: number }>('count')).received - before,
            WEBHOOKS,
            60_000,
            200,
          )
        ).at !== undefined;
    }
    if (created !== WEBHOOKS) {
      return [
        missing(
          'fan-out 1,000 webhooks',
          'ms',
          `the event created ${created} deliveries, not ${WEBHOOKS}`,
          TARGET,
        ),
      ];
    }
    // The first round also pays for cold caches and plans: the median of the rounds is the figure.
    const s = summarise(times);
    b.log(`fan-out: ${times.map((t) => t.toFixed(1)).join(', ')} ms`);
    return [
      row(
        'fan-out 1,000 webhooks',
        'ms',
        s.p50,
        null,
        TARGET,
        `median of ${times.length} rounds, max ${s.max.toFixed(0)} ms${drained ? '' : '; a round did not drain in 60 s'}`,
      ),
    ];
  },
};
