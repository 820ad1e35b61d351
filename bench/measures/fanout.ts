// Fan-out: one event for a merchant with WEBHOOKS webhooks of its own subscribed to it, one for a merchant
// whose WEBHOOKS webhooks each have a payload filter the event matches (API.md 12.2: the filter is evaluated
// as the event is recorded), and one for a merchant that installed WEBHOOKS apps (one webhook each), in
// alternating rounds after a warm-up of each.
// The ingestion route answers 202 once the event and every delivery are committed, so its answer time (from
// a warm connection) is the time to commit all deliveries. The deliveries of a round drain before the next.
import { request } from 'undici';
import { inParallel } from '../lib/api.ts';
import { installedApps } from '../lib/apps.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs } from '../lib/stats.ts';
import { createWebhook, receiver, waitFor, webhooksMissing } from '../lib/webhooks.ts';
import { sampleData } from '../../src/modules/events/index.ts';

const WEBHOOKS = 1000;
const ROWS = {
  own: {
    name: 'fan-out 1,000 webhooks',
    unit: 'ms',
    about: `one event for a merchant with ${WEBHOOKS} subscribed webhooks: the ingestion's 202, all deliveries committed`,
    target: { of: 'value', op: '<=', limit: 50 },
  },
  filtered: {
    name: 'fan-out 1,000 webhooks, each filtered',
    unit: 'ms',
    about: `the same, each webhook with a two-condition payload filter the event matches`,
    versus: 'the fan-out to 1,000 webhooks without a filter, same rounds',
    target: { of: 'ratio', op: '<=', limit: 1.2 },
  },
  apps: {
    name: 'fan-out to 1,000 app webhooks',
    unit: 'ms',
    about: `one event for a merchant that installed ${WEBHOOKS} apps, one webhook each`,
    versus: 'the fan-out to 1,000 webhooks of the merchant itself, same rounds',
    target: { of: 'ratio', op: '<=', limit: 1.5 },
  },
} as const satisfies Record<string, RowSpec>;

/** What a store's integration asks for: its products, active, in the currencies it sells in. */
const FILTER = {
  all: [
    { path: 'data.status', op: 'eq', value: 'active' },
    { path: 'data.currency', op: 'in', value: ['EUR', 'USD'] },
  ],
};

type Rx = Awaited<ReturnType<typeof receiver>>;
const received = async (rx: Rx) => (await rx.child.call<{ received: number }>('count')).received;

/** One event through the ingestion route: its answer time, once WEBHOOKS deliveries were made and drained. */
async function timedFanout(b: Bench, rx: Rx, merchantId: string, id: string): Promise<number> {
  const before = await received(rx);
  const t0 = nowMs();
  const res = await request(`${b.service.url}/internal/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${b.service.internalToken}` },
    body: JSON.stringify({
      merchant_id: merchantId,
      mode: 'test',
      type: 'product.created',
      data: { ...sampleData('product.created'), id },
    }),
  });
  const body = (await res.body.json()) as { data?: { deliveries?: number } };
  const ms = nowMs() - t0;
  if (res.statusCode !== 202 || body.data?.deliveries !== WEBHOOKS) {
    throw new Error(`made ${body.data?.deliveries ?? res.statusCode} deliveries, not ${WEBHOOKS}`);
  }
  const drained = await waitFor(async () => (await received(rx)) - before, WEBHOOKS, 60_000, 100);
  if (drained.at === undefined) throw new Error('a round did not drain in 60 s');
  return ms;
}

export const fanout: Measure = {
  name: 'fanout',
  about: `one event to ${WEBHOOKS} webhooks of a merchant, the same filtered, and to ${WEBHOOKS} installed apps' webhooks`,
  rows: Object.values(ROWS),
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return Object.values(ROWS).map((s) => missing(s, why));
    const rx = await receiver(b);
    const own = await b.api.signup('Bench fan-out');
    const filtered = await b.api.signup('Bench fan-out, filtered');
    await inParallel(
      Array.from({ length: 2 * WEBHOOKS }, (_, i) => i),
      8,
      (i) =>
        i < WEBHOOKS
          ? createWebhook(b.api, own, `${rx.url}/fanout/${i}`, 'product.created')
          : createWebhook(b.api, filtered, `${rx.url}/fanout-filtered/${i}`, 'product.created', {
              filter: FILTER,
            }),
    );
    const developer = await b.api.signup('Bench app developer');
    const shop = await b.api.signup('Bench shop with 1,000 apps');
    await installedApps(
      b.api,
      developer,
      shop,
      WEBHOOKS,
      (i) => `${rx.url}/app-fanout/${i}`,
      'product.created',
    );
    // The first event of each pays for cold caches and plans.
    await timedFanout(b, rx, own.merchantId, 'prod_warm_own');
    await timedFanout(b, rx, filtered.merchantId, 'prod_warm_filtered');
    await timedFanout(b, rx, shop.merchantId, 'prod_warm_app');
    const rs = await inRounds(b, async (k) => ({
      own: await timedFanout(b, rx, own.merchantId, `prod_own_${k}`),
      filtered: await timedFanout(b, rx, filtered.merchantId, `prod_filtered_${k}`),
      apps: await timedFanout(b, rx, shop.merchantId, `prod_app_${k}`),
    }));
    b.log(
      `fan-out: own ${range(rs.map((r) => r.own))} ms, filtered ${range(rs.map((r) => r.filtered))} ms, ` +
        `apps ${range(rs.map((r) => r.apps))} ms`,
    );
    return [
      sampled(
        ROWS.own,
        rs.map((r) => r.own),
      ),
      sampled(
        ROWS.filtered,
        rs.map((r) => r.filtered),
        rs.map((r) => r.own),
      ),
      sampled(
        ROWS.apps,
        rs.map((r) => r.apps),
        rs.map((r) => r.own),
      ),
    ];
  },
};
