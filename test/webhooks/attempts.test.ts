// Every delivery attempt of a merchant's endpoints (API.md section 12.2, GET /webhook-attempts), on both
// databases: attempts made by the real workers against a real receiver (2xx, 4xx, 5xx, a refused connection),
// an app webhook's attempts with their store and app, each filter, the cursor, the tenant's walls; and the plan
// of each filter's page over many attempts, which must read an index and never the whole table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { INTERNAL_TOKEN, createWebhook, emit, type CreatedWebhook } from './helpers.ts';
import { createAppWebhook, install, newApp } from './app-helpers.ts';
import {
  attemptsPageStatement,
  listMerchantAttempts,
  type AttemptFilter,
} from '../../src/modules/attempts/index.ts';
import { outcomeOf } from '../../src/modules/delivery/attempt-outcome.ts';

interface AttemptView {
  id: string;
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  store_id: string | null;
  app_id: string | null;
  attempt: number;
  outcome: string;
  response_status: number | null;
  duration_ms: number;
  created_at: string;
}
interface AttemptPage {
  items: AttemptView[];
  count: number;
  has_more: boolean;
  next_cursor: string | null;
}

let svc: TestService;
let rx: Receiver;
let dev: TestMerchant;
let shop: TestMerchant;
let ok: CreatedWebhook;
let bad: CreatedWebhook;
let client: CreatedWebhook;
let down: CreatedWebhook;
let appHook: CreatedWebhook & { app_id: string };
let appId: string;

async function attempts(m: TestMerchant, query = '', mode = 'test') {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/webhook-attempts${query}`,
    headers: { ...m.auth, 'x-svc-mode': mode },
  });
  return res;
}
const page = async (m: TestMerchant, query = '') => {
  const res = await attempts(m, query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AttemptPage }>().data;
};

beforeAll(async () => {
  // retries an hour away: the attempts a test reads are the first ones only, and none arrives meanwhile
  svc = await startTestService({
    workers: true,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '3600,3600' },
  });
  rx = await startReceiver((r) => ({
    status: r.path.startsWith('/bad') ? 500 : r.path.startsWith('/client') ? 422 : 200,
  }));
  dev = await signupMerchant(svc.app, 'Attempts developer');
  shop = await signupMerchant(svc.app, 'Attempts shop');
  ok = await createWebhook(svc, dev, `${rx.url}/ok`, ['order.created', 'order.paid', 'cart.abandoned']);
  bad = await createWebhook(svc, dev, `${rx.url}/bad`, ['order.paid']);
  client = await createWebhook(svc, dev, `${rx.url}/client`, ['cart.abandoned']);
  // nothing listens on port 1: the connection is refused, a network error
  down = await createWebhook(svc, dev, 'http://127.0.0.1:1/down', ['order.created']);
  const app = await newApp(svc, dev);
  appId = app.id;
  appHook = await createAppWebhook(svc, dev, app, `${rx.url}/app`, ['order.created']);
  await install(svc, app, shop, 'public:read');

  await emit(svc, dev, 'order.created', { id: 'ord_a' }); // ok, down
  await emit(svc, dev, 'order.paid', { id: 'ord_a' }); // ok, bad
  await emit(svc, dev, 'cart.abandoned'); // ok, client
  await emit(svc, shop, 'order.created', { id: 'ord_shop' }); // the app's webhook, for the shop's store
  // the first attempt of each of the seven deliveries
  await eventually(async () => (await page(dev)).count >= 7, { what: 'seven attempts recorded' });
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

describe('GET /webhook-attempts', () => {
  it('lists every attempt of every endpoint, newest first, with the contract fields', async () => {
    const all = await page(dev, '?limit=200');
    const first = all.items.filter((a) => a.attempt === 1);
    expect(first).toHaveLength(7);
    const ids = all.items.map((a) => a.id);
    expect(ids).toEqual([...ids].sort().reverse());
    for (const a of all.items) {
      expect(a.id).toMatch(/^att_[0-9a-hjkmnp-tv-z]{30}$/);
      expect(a.delivery_id).toMatch(/^dlv_/);
      expect(a.event_id).toMatch(/^evt_/);
      expect(Object.keys(a).sort()).toEqual(
        [
          'app_id',
          'attempt',
          'created_at',
          'delivery_id',
          'duration_ms',
          'event_id',
          'event_type',
          'id',
          'outcome',
          'response_status',
          'store_id',
          'webhook_id',
        ].sort(),
      );
    }
    const of = (w: { id: string }) => first.filter((a) => a.webhook_id === w.id);
    expect(of(ok).map((a) => a.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(of(bad)).toEqual([
      expect.objectContaining({ outcome: 'failed', response_status: 500, store_id: null }),
    ]);
    expect(of(client)).toEqual([expect.objectContaining({ outcome: 'failed', response_status: 422 })]);
    expect(of(down)).toEqual([expect.objectContaining({ outcome: 'network_error', response_status: null })]);
    expect(of(appHook)).toEqual([
      expect.objectContaining({
        outcome: 'succeeded',
        event_type: 'order.created',
        store_id: shop.storeId,
        app_id: appId,
      }),
    ]);
  });

  it('carries store_id and app_id on deliveries too, and filters an app webhook by store', async () => {
    const url = `/api/v1/merchant/webhooks/${appHook.id}/deliveries`;
    const all = await svc.app.inject({ url, headers: dev.auth });
    expect(all.json<{ data: { items: unknown[] } }>().data.items).toEqual([
      expect.objectContaining({ store_id: shop.storeId, app_id: appId }),
    ]);
    const byStore = await svc.app.inject({ url: `${url}?store_id=${shop.storeId}`, headers: dev.auth });
    expect(byStore.json<{ data: { count: number } }>().data.count).toBe(1);
    const other = await svc.app.inject({ url: `${url}?store_id=${dev.storeId}`, headers: dev.auth });
    expect(other.json<{ data: { count: number } }>().data.count).toBe(0);
    const own = await svc.app.inject({
      url: `/api/v1/merchant/webhooks/${ok.id}/deliveries`,
      headers: dev.auth,
    });
    for (const d of own.json<{ data: { items: { store_id: unknown; app_id: unknown }[] } }>().data.items)
      expect(d).toMatchObject({ store_id: null, app_id: null });
  });

  it('filters by endpoint, type, family, outcome, status class, store and app', async () => {
    const only = async (query: string) =>
      (await page(dev, `?limit=200&${query}`)).items.filter((a) => a.attempt === 1);
    expect((await only(`webhook_id=${bad.id}`)).map((a) => a.webhook_id)).toEqual([bad.id]);
    expect((await only('event_type=order.paid')).map((a) => a.webhook_id).sort()).toEqual(
      [ok.id, bad.id].sort(),
    );
    expect(await only('event_type=order.*')).toHaveLength(5);
    expect(await only('event_type=order.paid,cart.abandoned')).toHaveLength(4);
    expect((await only('outcome=network_error')).map((a) => a.webhook_id)).toEqual([down.id]);
    expect(await only('outcome=failed,network_error')).toHaveLength(3);
    expect((await only('status_class=5xx')).map((a) => a.webhook_id)).toEqual([bad.id]);
    expect(await only('status_class=4xx,5xx')).toHaveLength(2);
    expect(await only('status_class=2xx')).toHaveLength(4);
    expect((await only(`store_id=${shop.storeId}`)).map((a) => a.webhook_id)).toEqual([appHook.id]);
    expect((await only(`app_id=${appId}`)).map((a) => a.webhook_id)).toEqual([appHook.id]);
    // filters combine
    expect(await only(`event_type=order.*&outcome=succeeded&webhook_id=${ok.id}`)).toHaveLength(2);
    // the count is over every page, with the same filters
    const counted = await page(dev, '?limit=1&event_type=order.*&status_class=2xx,5xx');
    expect(counted.items).toHaveLength(1);
    expect(counted.count).toBe(4);
  });

  it('bounds by time and pages with the cursor', async () => {
    const all = await page(dev, '?limit=200');
    const times = all.items.map((a) => a.created_at).sort();
    const middle = times[Math.floor(times.length / 2)]!;
    const since = await page(dev, `?limit=200&since=${middle}`);
    const until = await page(dev, `?limit=200&until=${middle}`);
    expect(since.items.every((a) => a.created_at >= middle)).toBe(true);
    expect(until.items.every((a) => a.created_at < middle)).toBe(true);
    expect(since.count + until.count).toBe(all.count);
    expect((await page(dev, '?since=1900-01-01T00:00:00Z')).count).toBe(all.count);

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const p: AttemptPage = await page(dev, `?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(p.count).toBe(all.count);
      walked.push(...p.items.map((a) => a.id));
      cursor = p.next_cursor;
      expect(p.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(walked).toEqual(all.items.map((a) => a.id));
  });

  it("shows nothing of another merchant's, or of the other mode", async () => {
    expect((await page(shop)).count).toBe(0);
    const live = await attempts(dev, '', 'live');
    expect(live.json<{ data: AttemptPage }>().data.count).toBe(0);
    // another merchant's webhook id filters to nothing, it does not reach into their attempts
    expect((await page(shop, `?webhook_id=${ok.id}`)).count).toBe(0);
  });

  it('refuses filters it does not know, naming them', async () => {
    for (const [query, field] of [
      ['?outcome=lost', 'outcome'],
      ['?status_class=6xx', 'status_class'],
      ['?event_type=order.shipped_by_owl', 'event_type'],
      ['?event_type=owls.*', 'event_type'],
      ['?since=yesterday', 'since'],
      ['?limit=500', 'limit'],
    ] as const) {
      const res = await attempts(dev, query);
      expect([query, res.statusCode, res.json().error.code]).toEqual([query, 400, 'validation_failed']);
      expect(JSON.stringify(res.json().error.details)).toContain(field);
    }
  });
});

describe('the outcome of an attempt', () => {
  it('is the contract word for each class of answer', () => {
    expect(outcomeOf(204, null)).toBe('succeeded');
    expect(outcomeOf(302, 'http_status: the endpoint answered 302')).toBe('failed');
    expect(outcomeOf(410, 'http_status: the endpoint answered 410')).toBe('failed');
    expect(outcomeOf(null, 'timeout: no complete answer within 15 s')).toBe('timeout');
    expect(outcomeOf(null, 'blocked_address: 10.0.0.1 is a private address')).toBe('refused');
    expect(outcomeOf(null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1')).toBe('network_error');
  });
});

describe('the page of each filter over many attempts', () => {
  const scope = { merchantId: 'mer_plans', mode: 'test' as const };
  beforeAll(async () => {
    // 40,000 attempts, nine in ten of one merchant: enough that reading them all would cost the planner more
    // than any index range, as ten million would.
    await sql`
      insert into delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_status, error,
        merchant_id, mode, webhook_id, event_id, event_type, store_id, app_id, outcome)
      select 'att_' || lpad(g::text, 10, '0') || substr(md5(g::text), 1, 20), 'dlv_plan' || g, 1,
             now() - (g || ' seconds')::interval, 5,
             case when g % 20 = 0 then 500 when g % 20 = 1 then null else 200 end,
             case when g % 20 = 1 then 'timeout: no complete answer within 15 s' end,
             case when g % 10 = 0 then 'mer_other' else 'mer_plans' end, 'test', 'wh_plan' || (g % 40),
             'evt_plan' || g, (array['order.created','order.paid','order.cancelled','cart.abandoned'])[g % 4 + 1],
             case when g % 5 = 0 then 'store_plan' || (g % 50) end, case when g % 5 = 0 then 'app_plan' || (g % 3) end,
             case when g % 20 = 0 then 'failed' when g % 20 = 1 then 'timeout' else 'succeeded' end
      from generate_series(1, 40000) g
    `.execute(svc.ctx.db);
    await sql`analyze delivery_attempts`.execute(svc.ctx.db);
  });

  async function plan(f: AttemptFilter, after?: string): Promise<string> {
    const statement = attemptsPageStatement(svc.ctx.db, scope, f, after, 51);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${statement}`.execute(svc.ctx.db);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  const filters: [string, AttemptFilter][] = [
    ['webhook_id', { webhookId: 'wh_plan7' }],
    ['event_type', { eventTypes: ['order.paid'] }],
    ['outcome', { outcomes: ['failed'] }],
    ['status_class', { statusClasses: [5] }],
    ['store_id', { storeId: 'store_plan10' }],
    ['app_id', { appId: 'app_plan1' }],
    ['since and until', { since: new Date(Date.now() - 3_600_000), until: new Date(Date.now() - 60_000) }],
  ];

  it('reads the default page and a cursor in index order: no scan of the table, no sort', async () => {
    for (const text of [await plan({}), await plan({}, 'att_0000020000')]) {
      expect(text).toContain('delivery_attempts_page_idx');
      expect(text).not.toMatch(/Seq Scan|Sort/);
    }
  });

  it.each(filters)('reads the page of %s through an index', async (_name, f) => {
    const text = await plan(f);
    expect(text).toMatch(/Index/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  /** Every match counted, the filter's conditions in plain SQL (no time window): what counters must agree with. */
  async function counted(f: AttemptFilter): Promise<number> {
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from delivery_attempts
      where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
        and (${f.webhookId ?? null}::text is null or webhook_id = ${f.webhookId ?? null})
        and (${f.eventTypes ?? null}::text[] is null or event_type = any (${f.eventTypes ?? null}::text[]))
        and (${f.outcomes ?? null}::text[] is null or outcome = any (${f.outcomes ?? null}::text[]))
        and (${f.statusClasses ?? null}::int[] is null
             or response_status / 100 = any (${f.statusClasses ?? null}::int[]))
        and (${f.storeId ?? null}::text is null or store_id = ${f.storeId ?? null})
        and (${f.appId ?? null}::text is null or app_id = ${f.appId ?? null})
        and (${f.since ?? null}::timestamptz is null or started_at >= ${f.since ?? null})`.execute(
      svc.ctx.db,
    );
    return Number(rows[0]!.n);
  }

  it('counts every filter as its matches, after attempts are added and purged', async () => {
    const counts: AttemptFilter[] = [
      {},
      ...filters.filter(([name]) => !name.startsWith('since')).map(([, f]) => f),
      { eventTypes: ['order.created', 'order.paid'] },
      { outcomes: ['failed', 'timeout'] },
      { webhookId: 'wh_plan7', outcomes: ['failed'] },
      { webhookId: 'wh_plan3', eventTypes: ['order.created', 'cart.abandoned'] },
      { webhookId: 'wh_plan0', statusClasses: [5] },
      { outcomes: ['failed', 'timeout'], eventTypes: ['order.paid', 'order.cancelled'] },
      { webhookId: 'wh_plan7', outcomes: ['failed'], eventTypes: ['order.paid'] },
      { webhookId: 'wh_plan5', storeId: 'store_plan5' }, // no counter: counted
      { outcomes: ['succeeded'], statusClasses: [2] }, // no counter: counted
    ];
    const agree = async () => {
      for (const f of counts) {
        const listed = await listMerchantAttempts(svc.ctx.db, scope, f, { limit: 1 });
        expect(listed.count, JSON.stringify(f)).toBe(await counted(f));
      }
    };
    await agree();
    // the retention purge's delete, and one more attempt each to two endpoints
    await sql`delete from delivery_attempts where merchant_id = 'mer_plans' and id < 'att_0000000400'`.execute(
      svc.ctx.db,
    );
    await sql`
      insert into delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_status,
        merchant_id, mode, webhook_id, event_id, event_type, outcome)
      values ('att_9999999998', 'dlv_plan_x', 1, now(), 5, 500, 'mer_plans', 'test', 'wh_plan7', 'evt_x',
              'order.paid', 'failed'),
             ('att_9999999999', 'dlv_plan_y', 1, now(), 5, 200, 'mer_plans', 'test', 'wh_plan0', 'evt_y',
              'order.created', 'succeeded')`.execute(svc.ctx.db);
    await agree();
  });

  it("reads an endpoint's attempts of one outcome and one type as one range of their own index", async () => {
    // a combination that matches nothing: the endpoint's index alone would read all of its attempts to say so
    const text = await plan({ webhookId: 'wh_plan7', outcomes: ['timeout'], eventTypes: ['order.paid'] });
    expect(text).toContain('delivery_attempts_webhook_outcome_type_idx');
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('reads one index range per value of a list, each cut at the page', async () => {
    const text = await plan({ eventTypes: ['order.created', 'order.paid', 'order.cancelled'] });
    expect(text).not.toMatch(/Seq Scan/);
    expect(text.match(/Limit/g)?.length).toBeGreaterThanOrEqual(4);
  });
});
