// Replays by filter (API.md section 12.2): preview, start, progress, list and cancel; what `failed` and `all`
// walk, and what is skipped (a type the endpoint no longer hears, an event its filter refuses); a replay left
// half-way by one process finished by another, each event queued once; and live events whose first attempts
// go out while a replay's backlog drains, not after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/outbox/index.ts';
import { advanceReplays } from '../../src/modules/replays/index.ts';
import { mergeData, sampleData } from '../../src/modules/events/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit } from './helpers.ts';

const env = { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '0.2' };
let svc: TestService;
let idle: TestService;
let rx: Receiver;
let failing = true;
beforeAll(async () => {
  svc = await startTestService({ workers: true, env });
  idle = await startTestService({ env });
  rx = await startReceiver((r) => ({
    status: r.path === '/flaky' && failing ? 500 : 200,
    delayMs: r.path === '/slow' ? 100 : 0,
  }));
});
afterAll(async () => {
  await svc?.close();
  await idle?.close();
  await rx?.close();
});

interface ReplayView {
  id: string;
  webhook_id: string;
  status: 'running' | 'done' | 'cancelled';
  filter: Record<string, unknown>;
  matched: number;
  queued: number;
  skipped: number;
  created_at: string;
  finished_at: string | null;
}

const call = (s: TestService, m: TestMerchant, method: string, url: string, payload?: object) =>
  s.app.inject({
    method: method as 'GET',
    url: `${base}${url}`,
    headers: m.auth,
    ...(payload ? { payload } : {}),
  });

async function replay(s: TestService, m: TestMerchant, webhookId: string, body: object): Promise<ReplayView> {
  const res = await call(s, m, 'POST', `/${webhookId}/replays`, body);
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ data: ReplayView }>().data;
}

async function matched(s: TestService, m: TestMerchant, webhookId: string, body: object): Promise<number> {
  const res = await call(s, m, 'POST', `/${webhookId}/replays`, { ...body, preview: true });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: { matched: number } }>().data.matched;
}

const shown = async (s: TestService, m: TestMerchant, webhookId: string, id: string) =>
  (await call(s, m, 'GET', `/${webhookId}/replays/${id}`)).json<{ data: ReplayView }>().data;

const finished = (s: TestService, m: TestMerchant, webhookId: string, id: string) =>
  eventually(
    async () => {
      const r = await shown(s, m, webhookId, id);
      return r.status !== 'running' && r;
    },
    { timeoutMs: 20_000 },
  );

/** `n` order.created events of the merchant recorded in one statement, with `data` over the sample. */
async function recordMany(
  s: TestService,
  m: TestMerchant,
  n: number,
  data = (i: number) => ({ id: `ord_${i}` }),
) {
  const at = new Date();
  const events = Array.from({ length: n }, (_, i) => ({
    merchantId: m.merchantId,
    mode: 'test' as const,
    type: 'order.created',
    data: mergeData(sampleData('order.created'), data(i)),
  }));
  return s.ctx.db.transaction().execute((trx) => emitEvents(trx, events, at));
}

const idOf = (r: { headers: Record<string, unknown> }) => String(r.headers['webhook-id']);

describe('a replay of what failed', () => {
  let m: TestMerchant;
  let hook: { id: string };
  let since: string;
  const created: string[] = [];
  const paid: string[] = [];

  beforeAll(async () => {
    m = await signupMerchant(svc.app);
    hook = await createWebhook(svc, m, `${rx.url}/flaky`, ['order.created', 'order.paid']);
    since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 4; i++) created.push((await emit(svc, m, 'order.created', { id: `ord_c${i}` })).id);
    for (let i = 0; i < 3; i++) paid.push((await emit(svc, m, 'order.paid', { id: `ord_p${i}` })).id);
    await eventually(async () => (await deliveries(svc, m, hook.id, '?status=failed')).count === 7, {
      timeoutMs: 15_000,
    });
  });

  it('previews, then queues exactly the failed events it matches and reports its progress', async () => {
    expect(await matched(svc, m, hook.id, { since })).toBe(7);
    expect(await matched(svc, m, hook.id, { since, event_types: ['order.paid'] })).toBe(3);
    failing = false;
    const from = Date.now();
    try {
      const started = await replay(svc, m, hook.id, { since, event_types: ['order.created'] });
      expect(started.id).toMatch(/^rpl_/);
      expect(started).toMatchObject({
        webhook_id: hook.id,
        matched: 4,
        filter: { since, status: 'failed', event_types: ['order.created'], store_id: null },
      });
      const done = await finished(svc, m, hook.id, started.id);
      expect(done).toMatchObject({ status: 'done', matched: 4, queued: 4, skipped: 0 });
      expect(done.finished_at).not.toBeNull();
      const again = await rx.waitFor(4, 10_000, (r) => r.path === '/flaky' && r.at >= from);
      expect(new Set(again.map(idOf))).toEqual(new Set(created));
      // sent now: the events' latest deliveries succeeded, so nothing of theirs has failed any more
      await eventually(
        async () => (await matched(svc, m, hook.id, { since, event_types: ['order.created'] })) === 0,
      );
    } finally {
      failing = true;
    }
  });

  it('skips, and counts, the events of a type the endpoint no longer hears', async () => {
    const res = await call(svc, m, 'PATCH', `/${hook.id}`, { events: ['order.created'] });
    expect(res.statusCode).toBe(200);
    const started = await replay(svc, m, hook.id, { since });
    expect(started.matched).toBe(3);
    expect(await finished(svc, m, hook.id, started.id)).toMatchObject({
      status: 'done',
      matched: 3,
      queued: 0,
      skipped: 3,
    });
  });

  it('lists replays newest first with a cursor, and audits each', async () => {
    const page = (await call(svc, m, 'GET', `/${hook.id}/replays?limit=1`)).json<{
      data: { items: ReplayView[]; count: number; has_more: boolean; next_cursor: string | null };
    }>().data;
    expect(page).toMatchObject({ count: 2, has_more: true });
    expect(page.items[0]!.skipped).toBe(3);
    const rest = (await call(svc, m, 'GET', `/${hook.id}/replays?starting_after=${page.next_cursor}`)).json<{
      data: { items: ReplayView[]; has_more: boolean };
    }>().data;
    expect(rest.items.map((r) => r.queued)).toEqual([4]);
    expect(rest.has_more).toBe(false);
    const logs = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=webhook.replayed',
      headers: m.auth,
    });
    expect(logs.json<{ data: { count: number } }>().data.count).toBe(2);
  });

  it('refuses what it cannot replay', async () => {
    const bad = async (body: object, field: string) => {
      const res = await call(svc, m, 'POST', `/${hook.id}/replays`, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ error: { details: { field: string }[] } }>().error.details[0]!.field).toBe(field);
    };
    await bad({ since: 'yesterday' }, 'since');
    await bad({ since, until: new Date(Date.parse(since) - 1000).toISOString() }, 'until');
    await bad({ since: new Date(Date.now() + 60_000).toISOString() }, 'since');
    await bad({ since, status: 'succeeded' }, 'status');
    await bad({ since, event_types: ['order.nope'] }, 'event_types[0]');
    await bad({ since, colour: 'red' }, 'colour');
    expect((await call(svc, m, 'POST', '/wh_nope/replays', { since })).statusCode).toBe(404);
    expect((await call(svc, m, 'GET', `/${hook.id}/replays/rpl_nope`)).statusCode).toBe(404);
    const other = await signupMerchant(svc.app, 'Other');
    expect((await call(svc, other, 'GET', `/${hook.id}/replays`)).statusCode).toBe(404);
    await call(svc, m, 'POST', `/${hook.id}/disable`);
    const disabled = await call(svc, m, 'POST', `/${hook.id}/replays`, { since });
    expect(disabled.statusCode).toBe(409);
    await call(svc, m, 'POST', `/${hook.id}/enable`);
  });
});

it('with status all, sends what the endpoint should have received, judged by its types and filter now', async () => {
  const m = await signupMerchant(svc.app);
  const since = new Date(Date.now() - 1000).toISOString();
  // recorded before the endpoint existed: it received none of them
  const eur = await recordMany(svc, m, 3, (i) => ({ id: `ord_e${i}`, currency: 'EUR' }));
  await recordMany(svc, m, 2, (i) => ({ id: `ord_u${i}`, currency: 'USD' }));
  await emit(svc, m, 'order.paid', { id: 'ord_paid' });
  const res = await svc.app.inject({
    method: 'POST',
    url: base,
    headers: m.auth,
    payload: {
      url: `${rx.url}/all`,
      events: ['order.created'],
      filter: { all: [{ path: 'data.currency', op: 'eq', value: 'EUR' }] },
    },
  });
  const hook = res.json<{ data: { id: string } }>().data;
  expect(await matched(svc, m, hook.id, { since })).toBe(0);
  expect(await matched(svc, m, hook.id, { since, status: 'all' })).toBe(6);
  expect(await matched(svc, m, hook.id, { since, status: 'all', store_id: 'store_nope' })).toBe(0);
  const started = await replay(svc, m, hook.id, { since, status: 'all' });
  expect(await finished(svc, m, hook.id, started.id)).toMatchObject({
    status: 'done',
    matched: 6,
    queued: 3,
    skipped: 3,
  });
  const got = await rx.waitFor(3, 10_000, (r) => r.path === '/all');
  expect(new Set(got.map(idOf))).toEqual(new Set(eur.map((e) => e.id)));
});

it('cancels what is not yet queued', async () => {
  const m = await signupMerchant(idle.app);
  const hook = await createWebhook(idle, m, `${rx.url}/idle`);
  const since = new Date(Date.now() - 1000).toISOString();
  await recordMany(idle, m, 5);
  const started = await replay(idle, m, hook.id, { since, status: 'all' });
  expect(started).toMatchObject({ status: 'running', matched: 5, queued: 0, finished_at: null });
  const res = await call(idle, m, 'DELETE', `/${hook.id}/replays/${started.id}`);
  expect(res.statusCode).toBe(200);
  const cancelled = res.json<{ data: ReplayView }>().data;
  expect(cancelled).toMatchObject({ status: 'cancelled', queued: 0 });
  expect(cancelled.finished_at).not.toBeNull();
  expect(await advanceReplays(idle.ctx)).toBeUndefined();
  expect((await deliveries(idle, m, hook.id)).count).toBe(5); // the live ones only
  const twice = await call(idle, m, 'DELETE', `/${hook.id}/replays/${started.id}`);
  expect(twice.json<{ data: ReplayView }>().data).toEqual(cancelled);
  const logs = await idle.app.inject({
    url: '/api/v1/merchant/developer/logs?action=webhook.replay_cancelled',
    headers: m.auth,
  });
  expect(logs.json<{ data: { count: number } }>().data.count).toBe(1);
});

it('is continued by another process from where the first one left it, each event queued once', async () => {
  const m = await signupMerchant(idle.app);
  const since = new Date(Date.now() - 1000).toISOString();
  const events = await recordMany(idle, m, 250);
  const hook = await createWebhook(idle, m, `${rx.url}/restart`);
  const started = await replay(idle, m, hook.id, { since, status: 'all' });
  expect(started.matched).toBe(250);
  // one batch here, as a process that stopped after it would leave it
  expect(await advanceReplays(idle.ctx, 100)).toMatchObject({
    id: started.id,
    status: 'running',
    queued: 100,
  });
  expect(await shown(idle, m, hook.id, started.id)).toMatchObject({ status: 'running', queued: 100 });
  const next = await startTestService({ shareWith: idle, workers: true, env });
  try {
    expect(await finished(next, m, hook.id, started.id)).toMatchObject({
      status: 'done',
      queued: 250,
      matched: 250,
    });
    const got = await rx.waitFor(250, 20_000, (r) => r.path === '/restart');
    expect(got.map(idOf).toSorted()).toEqual(events.map((e) => e.id).toSorted());
  } finally {
    await next.close();
  }
});

it(
  'never delays a live event’s first attempt behind the replay’s backlog',
  { timeout: 120_000 },
  async () => {
    const m = await signupMerchant(svc.app);
    const since = new Date(Date.now() - 1000).toISOString();
    const backlog = 1000;
    await recordMany(svc, m, backlog);
    const hook = await createWebhook(svc, m, `${rx.url}/slow`);
    const started = await replay(svc, m, hook.id, { since, status: 'all' });
    expect(started.matched).toBe(backlog);
    const slow = (r: { path: string }) => r.path === '/slow';
    await rx.waitFor(50, 60_000, slow); // draining: 32 at a time, 100 ms each
    const live: { id: string; at: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const at = Date.now();
      live.push({ id: (await emit(svc, m, 'order.created', { id: `ord_live_${i}` })).id, at });
      // the next one after 20 more of the backlog went out
      await rx.waitFor(50 + 20 * (i + 1), 60_000, slow);
    }
    const ids = new Set(live.map((l) => l.id));
    const arrivals = await rx.waitFor(live.length, 60_000, (r) => slow(r) && ids.has(idOf(r)));
    const latency = live.map((l) => arrivals.find((r) => idOf(r) === l.id)!.at - l.at);
    const lastLive = Math.max(...arrivals.map((r) => r.at));
    const all = await rx.waitFor(backlog + live.length, 100_000, slow);
    // the backlog was still draining after the last live event arrived: those went out before the replay's rest
    expect(all.filter((r) => !ids.has(idOf(r)) && r.at > lastLive).length).toBeGreaterThan(100);
    // in the queue's order, each would have waited for the hundreds queued before it: seconds
    expect(Math.max(...latency)).toBeLessThan(1000);
  },
);
