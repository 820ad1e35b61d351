// Fan-out against the number of webhooks subscribed to an event: one merchant per size, its first webhook
// made through the API (for a sealed secret the service can open) and the rest cloned from it by one
// INSERT ... SELECT. The ingestion route answers 202 once the event and every delivery are committed, so its
// answer time is the fan-out; the deliveries drain to the receiver before the next round.
import pg from 'pg';
import { request } from 'undici';
import type { Bench } from '../lib/bench.ts';
import { nowMs, summarise } from '../lib/stats.ts';
import { createWebhook, receiver, waitFor } from '../lib/webhooks.ts';
import { TIME_CHARS } from '../lib/audit-seed.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import type { Curve, Point } from './curve.ts';

const SIZES = [100, 1_000, 10_000];
const ROUNDS = 3;

const CLONE = `
insert into webhooks (id, merchant_id, mode, url, events, secret_sealed, created_at, updated_at)
select 'wh_' || ${TIME_CHARS} || substr(md5(g::text || w.id), 1, 20), w.merchant_id, w.mode,
       w.url || '/' || g, w.events, w.secret_sealed, now(), now()
from webhooks w,
     generate_series(2, $2::int) g,
     lateral (select (extract(epoch from now()) * 1000)::bigint - g as ms) t
where w.id = $1`;

async function point(b: Bench, db: pg.Client, size: number): Promise<Point> {
  const rx = await receiver(b);
  const m = await b.api.signup(`Scale fan-out ${size}`);
  const first = await createWebhook(b.api, m, `${rx.url}/scale-fanout`, 'product.created');
  await db.query(CLONE, [first.id, size]);
  const times: number[] = [];
  let drainMs = 0;
  for (let round = 0; round < ROUNDS; round++) {
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
    if (res.statusCode !== 202 || body.data?.deliveries !== size) {
      throw new Error(`fan-out to ${size}: ${res.statusCode}, ${body.data?.deliveries} deliveries`);
    }
    const drained = await waitFor(
      async () => (await rx.child.call<{ received: number }>('count')).received - before,
      size,
      180_000,
      200,
    );
    if (drained.at === undefined) throw new Error(`fan-out to ${size}: ${drained.last} delivered in 180 s`);
    drainMs = Math.max(drainMs, drained.at - t0);
  }
  const s = summarise(times);
  b.log(`scale fan-out ${size}: ${times.map((t) => t.toFixed(1)).join(', ')} ms`);
  return {
    size,
    value: s.p50,
    detail: `median of ${ROUNDS}, max ${s.max.toFixed(0)} ms; ${((s.p50 / size) * 1000).toFixed(1)} µs per delivery; drained in ${(drainMs / 1000).toFixed(1)} s (${Math.round(size / (drainMs / 1000))}/s)`,
  };
}

export const fanoutCurve: Curve = {
  name: 'fanout',
  async run(b, sizes) {
    const chosen = sizes(SIZES);
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    const points: Point[] = [];
    try {
      for (const size of chosen) points.push(await point(b, db, size));
    } finally {
      await db.end();
    }
    return [
      {
        name: 'fan-out, ingestion answer',
        unit: 'ms',
        of: 'webhooks subscribed',
        flat: false,
        lowerIsBetter: true,
        points,
        skipped: SIZES.filter((s) => !chosen.includes(s)),
      },
    ];
  },
};
