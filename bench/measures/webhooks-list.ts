// Webhooks list with health: GET /webhooks?limit=100 (what the dashboard asks for) for a merchant with 1,000
// endpoints, each with a day of deliveries (10 each, a third failed). The health block is read in the page's
// statement, a lateral range of the (webhook_id, id) index per webhook, bounded to the last day by the ids.
// The target is the latency a person paging the list sees: one reader, each request as soon as the last
// answered; and the CPU per page, Node and PostgreSQL, from the same rounds. (Four readers at once were a
// row too: on 2 cores they saturate the machine, so their p99 was queueing, which the CPU per page says
// better.)
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import { missing, sampled, type Measure, type RowSpec } from '../lib/bench.ts';
import { cpuOf, cpuSplit, inRounds, meteredRun, range } from '../lib/rounds.ts';
import { TIME_CHARS } from '../lib/audit-seed.ts';

const WEBHOOKS = 1_000;
const PER_WEBHOOK = 10;
const PATH = '/api/v1/merchant/webhooks?limit=100';
const ROWS = {
  p99: {
    name: 'webhooks list (health) p99',
    unit: 'ms',
    about: `GET webhooks?limit=100 with health, one reader, ${WEBHOOKS.toLocaleString('en')} endpoints with ${PER_WEBHOOK} deliveries each in 24 h`,
    target: { of: 'value', op: '<=', limit: 20 },
  },
  cpu: {
    name: 'webhooks list CPU/page',
    unit: 'ms',
    about: 'the same rounds: Node + PostgreSQL CPU per page of 100',
  },
} as const satisfies Record<string, RowSpec>;

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
  about: "the dashboard's webhooks list with each endpoint's health, a page of 100",
  rows: Object.values(ROWS),
  quick: true,
  async run(b) {
    const m = await b.api.signup('Bench webhooks list');
    const probe = await b.api.call('GET', PATH, { token: m.token });
    if (probe.status !== 200 || probe.body?.data?.items === undefined) {
      return Object.values(ROWS).map((s) => missing(s, `unexpected answer ${probe.status}`));
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
      return Object.values(ROWS).map((s) => missing(s, `unexpected answer ${check.status}`));
    }
    const headers = { authorization: `Bearer ${m.token}` };
    const load = (duration = b.duration) =>
      b.load.call<LoadResult>('cannon', { url: b.service.url + PATH, headers, connections: 1, duration });
    await load(1);
    const rs = await inRounds(b, () => meteredRun(b.serviceCpu, () => load(), b.postgresCpu));
    b.log(`webhooks list: p99 ${range(rs.map((r) => r.p99))} ms, CPU/page ${cpuSplit(rs)}`);
    return [
      sampled(
        ROWS.p99,
        rs.map((r) => r.p99),
        [],
        `p50 ${range(rs.map((r) => r.p50))} ms, ${range(rs.map((r) => r.rps))} req/s`,
      ),
      sampled(ROWS.cpu, cpuOf(rs), [], cpuSplit(rs)),
    ];
  },
};
