// Payload filters (API.md section 12.2): create and PATCH name each faulty condition; the fan-out applies the
// filter in the statement that records the event, so a refused event leaves no delivery (no row, no attempt)
// to that endpoint, and is counted in health.filtered_24h; a test delivery ignores the filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit } from './helpers.ts';

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  m = await signupMerchant(svc.app);
});
afterAll(() => svc?.close());

const URL = 'http://127.0.0.1:9/hook';

const create = (payload: object) =>
  svc.app.inject({
    method: 'POST',
    url: base,
    headers: m.auth,
    payload: { url: URL, events: ['order.created'], ...payload },
  });
const patch = (id: string, payload: object) =>
  svc.app.inject({ method: 'PATCH', url: `${base}/${id}`, headers: m.auth, payload });

interface Detail {
  field: string;
  issue: string;
}
const detailsOf = (res: { statusCode: number; json: <T>() => T }) => {
  expect(res.statusCode).toBe(400);
  const body = res.json<{ error: { code: string; details: Detail[] } }>();
  expect(body.error.code).toBe('validation_failed');
  return body.error.details;
};

async function filtered(filter: object): Promise<string> {
  const res = await create({ filter });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ data: { id: string } }>().data.id;
}

const count = async (id: string) => (await deliveries(svc, m, id)).count;

async function health(id: string) {
  const res = await svc.app.inject({ url: `${base}/${id}`, headers: m.auth });
  return res.json<{ data: { filter: unknown; health: { filtered_24h: number; deliveries_24h: number } } }>()
    .data;
}

describe('validation', () => {
  it('names each faulty condition in details, on create and on PATCH', async () => {
    const res = await create({
      filter: {
        all: [
          { path: 'data.currency', op: 'eq', value: 'EUR' },
          { path: 'data.total', op: 'between', value: 1 },
          { path: 'data..x', op: 'eq', value: 1 },
          { path: 'data.tags', op: 'in', value: 'a' },
          { path: 'data.x', op: 'exists', value: 'yes' },
          { path: 'data.x', op: 'gt', value: { a: 1 } },
          { path: 'data.x', op: 'prefix', value: '', extra: 1 },
          { path: 'data.x', op: 'eq' },
        ],
      },
    });
    expect(detailsOf(res)).toEqual([
      { field: 'filter.all[1].op', issue: expect.stringContaining('must be one of eq, ne') },
      { field: 'filter.all[2].path', issue: expect.stringContaining('non-empty names') },
      { field: 'filter.all[3].value', issue: expect.stringContaining('array') },
      { field: 'filter.all[4].value', issue: 'must be true or false for exists' },
      { field: 'filter.all[5].value', issue: 'must be a number or a string for gt' },
      { field: 'filter.all[6].extra', issue: 'is not an allowed field' },
      { field: 'filter.all[6].value', issue: 'must be a non-empty string for prefix' },
      { field: 'filter.all[7].value', issue: 'is required' },
    ]);

    for (const filter of [{}, { all: [], any: [] }, { some: [] }, [], 'x', 3]) {
      expect(detailsOf(await create({ filter }))[0]!.field, JSON.stringify(filter)).toBe('filter');
    }
    expect(detailsOf(await create({ filter: { any: [] } }))).toEqual([
      { field: 'filter.any', issue: 'must be an array of 1-20 conditions' },
    ]);
    const many = Array.from({ length: 21 }, () => ({ path: 'data.id', op: 'exists', value: true }));
    expect(detailsOf(await create({ filter: { any: many } }))[0]!.field).toBe('filter.any');

    const id = await filtered({ any: many.slice(0, 20) });
    expect(detailsOf(await patch(id, { filter: { any: [{ path: 'x', op: 'in', value: [] }] } }))).toEqual([
      { field: 'filter.any[0].value', issue: expect.stringContaining('array of 1-100') },
    ]);
  });

  it('shows the filter, changes it by PATCH and clears it with null', async () => {
    const plain = await create({});
    expect(plain.json<{ data: { filter: unknown } }>().data.filter).toBeNull();
    const id = await filtered({ all: [{ path: 'data.currency', op: 'eq', value: 'EUR' }] });
    expect((await health(id)).filter).toEqual({ all: [{ path: 'data.currency', op: 'eq', value: 'EUR' }] });
    const changed = await patch(id, { filter: { any: [{ path: 'store_id', op: 'exists', value: false }] } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json<{ data: { filter: unknown } }>().data.filter).toEqual({
      any: [{ path: 'store_id', op: 'exists', value: false }],
    });
    expect((await patch(id, { filter: null })).json<{ data: { filter: unknown } }>().data.filter).toBeNull();
    const logs = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=webhook.updated',
      headers: m.auth,
    });
    const entries = logs.json<{ data: { items: { metadata: string }[] } }>().data.items;
    const audited = entries.map((e) => (JSON.parse(e.metadata) as { changed: string[] }).changed);
    expect(audited).toContainEqual(['filter']);
  });
});

describe('the fan-out', () => {
  it('records a delivery only to the endpoints whose filter the event matches', async () => {
    const cond = (path: string, op: string, value: unknown) => ({ all: [{ path, op, value }] });
    const hooks = {
      none: (await create({})).json<{ data: { id: string } }>().data.id,
      eq: await filtered(cond('data.currency', 'eq', 'EUR')),
      ne: await filtered(cond('data.currency', 'ne', 'EUR')),
      gt: await filtered(cond('data.totals.total', 'gt', 5000)),
      gte: await filtered(cond('data.totals.total', 'gte', 7834)),
      lt: await filtered(cond('data.totals.total', 'lt', 5000)),
      lte: await filtered(cond('data.totals.total', 'lte', 100.5)),
      in: await filtered(cond('data.currency', 'in', ['USD', 'GBP'])),
      exists: await filtered(cond('data.coupon', 'exists', true)),
      missing: await filtered(cond('data.coupon', 'exists', false)),
      prefix: await filtered(cond('data.email', 'prefix', 'vip+')),
      index: await filtered(cond('data.line_items.0.quantity', 'gte', 2)),
      text: await filtered(cond('data.created_at', 'lt', '2026-01-01T00:00:00.000Z')),
      mixed: await filtered(cond('data.currency', 'gt', 5)),
      any: await filtered({
        any: [
          { path: 'data.currency', op: 'eq', value: 'USD' },
          { path: 'data.email', op: 'prefix', value: 'vip+' },
        ],
      }),
      all: await filtered({
        all: [
          { path: 'data.currency', op: 'eq', value: 'USD' },
          { path: 'data.totals.total', op: 'lte', value: 100.5 },
        ],
      }),
    };
    const eur = await emit(svc, m, 'order.created', { id: 'ord_eur', currency: 'EUR' });
    await emit(svc, m, 'order.created', {
      id: 'ord_usd',
      currency: 'USD',
      email: 'vip+1@example.com',
      coupon: 'WELCOME',
      totals: { subtotal: 100, discount: 0, shipping: 0, tax: 0, total: 100 },
      created_at: '2025-12-24T10:00:00.000Z',
    });
    // the sample order: 7834 in total, its first line of quantity 2 (event-payloads.ts)

    const got = Object.fromEntries(
      await Promise.all(
        Object.entries(hooks).map(async ([name, id]) => {
          const page = await deliveries(svc, m, id);
          const events = page.items.map((d) => (d.event_id === eur.id ? 'eur' : 'usd')).sort();
          return [name, events.join(',')] as const;
        }),
      ),
    );
    expect(got).toEqual({
      none: 'eur,usd',
      eq: 'eur',
      ne: 'usd',
      gt: 'eur',
      gte: 'eur',
      lt: 'usd',
      lte: 'usd',
      in: 'usd',
      exists: 'usd',
      missing: 'eur',
      prefix: 'usd',
      index: 'eur,usd',
      text: 'usd',
      mixed: '',
      any: 'usd',
      all: 'usd',
    });
    // refused: counted by the endpoint's health, with no row
    expect((await health(hooks.eq)).health).toMatchObject({ filtered_24h: 1, deliveries_24h: 1 });
    expect((await health(hooks.mixed)).health).toMatchObject({ filtered_24h: 2, deliveries_24h: 0 });
    expect((await health(hooks.none)).health).toMatchObject({ filtered_24h: 0, deliveries_24h: 2 });
  });

  it('counts refusals across batches of ingestion and by the hour', async () => {
    const id = await filtered({ all: [{ path: 'data.currency', op: 'eq', value: 'JPY' }] });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        emit(svc, m, 'order.created', { id: `ord_b${i}`, currency: 'EUR' }),
      ),
    );
    expect(await count(id)).toBe(0);
    expect((await health(id)).health.filtered_24h).toBe(12);
    // an hour that began more than a day ago no longer counts
    await svc.ctx.db
      .updateTable('webhook_filtered_counts')
      .set({ hour: new Date(Date.now() - 25 * 3_600_000) })
      .where('webhook_id', '=', id)
      .execute();
    expect((await health(id)).health.filtered_24h).toBe(0);
  });

  it('sends a test delivery whatever the filter', async () => {
    const id = await filtered({ all: [{ path: 'data.currency', op: 'eq', value: 'none' }] });
    const res = await svc.app.inject({
      method: 'POST',
      url: `${base}/${id}/test`,
      headers: m.auth,
      payload: { event: 'order.created' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const sent = res.json<{ data: { test: boolean; attempts: unknown[] } }>().data;
    expect(sent.test).toBe(true);
    expect(sent.attempts).toHaveLength(1);
    expect(await count(id)).toBe(1);
  });
});

it('keeps unfiltered endpoints as they were: an existing webhook gets every event', async () => {
  const hook = await createWebhook(svc, m, URL, ['order.paid']);
  await emit(svc, m, 'order.paid', { id: 'ord_paid' });
  expect(await count(hook.id)).toBe(1);
});
