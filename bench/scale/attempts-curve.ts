// The attempts list against its size (API.md 12.2: every attempt of every endpoint of the merchant, newest first,
// with filters): p95 of a filtered page with SIZES attempts for one merchant, whose target is 100 ms at 10
// million. The attempts (and their deliveries) are seeded by set-based SQL over three webhooks, four event
// types and one failure in ten, spread over the last 29 days; each page kind is read REQUESTS times in turn
// from a warm connection, and the worst kind's p95 is the curve's figure.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { TIME_CHARS } from '../lib/audit-seed.ts';
import { percentile } from '../lib/stats.ts';
import { createWebhook, receiver } from '../lib/webhooks.ts';
import type { Curve, Point } from './curve.ts';

const SIZES = [100_000, 1_000_000, 10_000_000];
const REQUESTS = 100;
const P95_MS = 100;
const TYPES = ['order.created', 'order.paid', 'product.updated', 'inventory.low_stock'];

/** `$4` attempts, one per delivery, to the webhooks `$1`-`$3` in turn, created between 29 days and now. */
const ATTEMPTS = `
with d as (
  insert into deliveries (id, webhook_id, merchant_id, mode, event_id, event_type, status, attempt_count,
                          last_attempt_at, last_response_status, created_at, updated_at)
  select 'dlv_' || ${TIME_CHARS} || substr(md5(g::text || $5), 1, 24), w.id, w.merchant_id, w.mode,
         'evt_a' || $5 || g, (array[${TYPES.map((t) => `'${t}'`).join(', ')}])[1 + g % 4],
         case when g % 10 = 0 then 'failed' else 'succeeded' end, 1, at,
         case when g % 10 = 0 then 503 else 204 end, at, at
  from generate_series(1, $4::int) g
  join webhooks w on w.id = (array[$1, $2, $3])[1 + g % 3],
       lateral (select now() - make_interval(secs => 86400 * 29 * (1 - g::float8 / $4)) as at) a,
       lateral (select (extract(epoch from at) * 1000)::bigint as ms) t
  returning id, created_at, merchant_id, mode, webhook_id, event_id, event_type, status, last_response_status
)
insert into delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_status, response_body,
                               merchant_id, mode, webhook_id, event_id, event_type, outcome)
select 'att_' || substr(id, 5, 10) || substr(md5(id), 1, 20), id, 1, created_at, 3, last_response_status, '',
       merchant_id, mode, webhook_id, event_id, event_type, status from d`;

/** Each page the dashboard's Attempts view and `svc attempts` ask for. */
const pages = (hooks: readonly string[]) => ({
  newest: '',
  webhook: `&webhook_id=${hooks[0]}`,
  failed: '&outcome=failed',
  family: '&event_type=order.*',
  '5xx': '&status_class=5xx',
  combined: `&webhook_id=${hooks[1]}&outcome=failed&event_type=order.paid`,
});

async function p95(url: string, token: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await request(url, { headers: { authorization: `Bearer ${token}` } });
    await res.body.json();
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    times.push(performance.now() - t0);
  }
  return percentile(
    times.sort((x, y) => x - y),
    95,
  );
}

export const attemptsCurve: Curve = {
  name: 'attempts',
  async run(b, sizes) {
    const chosen = sizes(SIZES);
    const rx = await receiver(b);
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    const points: Point[] = [];
    try {
      const m = await b.api.signup('Scale attempts');
      const hooks: string[] = [];
      for (const n of [1, 2, 3])
        hooks.push((await createWebhook(b.api, m, `${rx.url}/a${n}`, 'order.created')).id);
      let have = 0;
      for (const size of chosen) {
        const t0 = performance.now();
        await db.query(ATTEMPTS, [...hooks, size - have, randomBytes(4).toString('hex')]);
        await db.query('analyze deliveries, delivery_attempts');
        have = size;
        const seeded = (performance.now() - t0) / 1000;
        const kinds = Object.entries(pages(hooks));
        const url = (q: string) => `${b.service.url}/api/v1/merchant/webhook-attempts?limit=50${q}`;
        for (const [, q] of kinds) await p95(url(q), m.token); // warm: plans, caches
        const figures: [string, number][] = [];
        for (const [kind, q] of kinds) figures.push([kind, await p95(url(q), m.token)]);
        const worst = Math.max(...figures.map(([, v]) => v));
        const detail = `${figures.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')} ms; seeded in ${seeded.toFixed(0)} s`;
        points.push({ size, value: worst, detail });
        b.log(`scale attempts ${size}: worst p95 ${worst.toFixed(1)} ms (${detail})`);
      }
    } finally {
      await db.end();
    }
    return [
      {
        name: 'attempts page p95, worst filter',
        unit: 'ms',
        of: "attempts of the merchant's endpoints",
        flat: true,
        lowerIsBetter: true,
        points,
        skipped: SIZES.filter((s) => !chosen.includes(s)),
        note:
          `GET /api/v1/merchant/webhook-attempts?limit=50 with each filter (${Object.keys(pages([])).join(', ')}), ` +
          `${REQUESTS} requests each, one at a time; target p95 <= ${P95_MS} ms at 10 million`,
      },
    ];
  },
};
