// Webhooks list with health: GET /webhooks?limit=100 (what the dashboard asks for) for a merchant with 1,000
// endpoints, each with a day of deliveries (10 each, a third failed), under a few concurrent readers. The
// health block is one grouped query over the page's webhooks, bounded to the last day by the delivery ids.
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { TIME_CHARS } from './audit.ts';

const WEBHOOKS = 1_000;
const PER_WEBHOOK = 10;
const CONNECTIONS = 4;
const P99 = { of: 'value', op: '<=', limit: 20 } as const;
const PATH = '/api/v1/merchant/webhooks?limit=100';

// Webhook ids and delivery ids in the service's own shape (time-sortable), deliveries spread over the last
// 23 hours; secret_sealed is never read, since nothing is sent.
const SEED_WEBHOOKS = `
insert into webhooks (id, merchant_id, mode, url, events, secret_sealed, failing_since, last_attempt_at,
                      last_response_status)
select 'wh_' || ${TIME_CHARS} || substr(md5(g::text || $1), 1, 20), $1, 'test',
       'http://127.0.0.1:9/hook/' || g, array['order.created'], 'unused',
       case when g % 3 = 0 then now() - interval '2 hours' end, now() - interval '1 minute',
       case when g % 3 = 0 then 500 else 200 end
from generate_series(1, $2::int) g,
     lateral (select (extract(epoch from now()) * 1000)::bigint - $2::int + g as ms) t`;

const SEED_DELIVERIES = `
insert into deliveries (id, webhook_id, merchant_id, mode, event_id, event_type, status, attempt_count,
                        created_at)
select 'dlv_' || ${TIME_CHARS} || substr(md5(w.id || n::text), 1, 24), w.id, w.merchant_id, 'test',
       'evt_bench_' || n, 'order.created', case when n % 3 = 0 then 'failed' else 'succeeded' end, 1,
       to_timestamp(ms / 1000.0)
from webhooks w, generate_series(1, $2::int) n,
     lateral (select (extract(epoch from now()) * 1000)::bigint - n * 8280000 as ms) t
where w.merchant_id = $1`;

export const webhooksList: Measure = {
  name: 'webhooks-list',
  async run(b) {
    const m = await b.api.signup('Bench webhooks list');
    const probe = await b.api.call('GET', PATH, { token: m.token });
    if (probe.status !== 200 || probe.body?.data?.items === undefined) {
      return [missing('webhooks list p99', 'ms', `unexpected answer ${probe.status}`, P99)];
    }
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    try {
      await db.query(SEED_WEBHOOKS, [m.merchantId, WEBHOOKS]);
      await db.query(SEED_DELIVERIES, [m.merchantId, PER_WEBHOOK]);
      await db.query('analyze webhooks');
      await db.query('analyze deliveries');
    } finally {
      await db.end();
    }
    const check = await b.api.call('GET', PATH, { token: m.token });
    const first = check.body?.data?.items?.[0];
    if (
      check.status !== 200 ||
      check.body.data.count !== WEBHOOKS ||
      first?.health?.deliveries_24h !== PER_WEBHOOK
    ) {
      return [missing('webhooks list p99', 'ms', `unexpected answer ${check.status}`, P99)];
    }
    const headers = { authorization: `Bearer ${m.token}` };
    await b.load.call('cannon', {
      url: b.service.url + PATH,
      headers,
      connections: CONNECTIONS,
      duration: 1,
    });
    const r = await b.load.call<LoadResult>('cannon', {
      url: b.service.url + PATH,
      headers,
      connections: CONNECTIONS,
      duration: Math.max(3, Math.round(b.duration / 2)),
    });
    b.log(`webhooks list: p99 ${r.p99} ms, p50 ${r.p50} ms, ${r.rps.toFixed(0)} req/s`);
    return [
      row(
        'webhooks list (health) p99',
        'ms',
        r.p99,
        null,
        P99,
        `p50 ${r.p50} ms, ${r.rps.toFixed(0)} req/s; ${WEBHOOKS} endpoints, pages of 100, ${PER_WEBHOOK} deliveries each in 24 h`,
      ),
    ];
  },
};
