import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { sampleData } from '../../src/modules/events/index.ts';

// Ingested data must match the schema of its type: the example of order.paid, as the platform would send.
const paid = sampleData('order.paid');

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_INTERNAL_TOKEN: 'internal-token-for-tests' } });
  m = await signupMerchant(svc.app);
});
afterAll(async () => svc?.close());

const base = '/api/v1/merchant/webhooks';

async function create(merchant: TestMerchant, body: Record<string, unknown>, mode = 'test') {
  return svc.app.inject({
    method: 'POST',
    url: base,
    headers: { ...merchant.auth, 'x-svc-mode': mode },
    payload: body,
  });
}

async function logs(merchant: TestMerchant, action: string) {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/developer/logs?action=${action}`,
    headers: merchant.auth,
  });
  return res.json().data.items as {
    action: string;
    entity_type: string;
    entity_id: string;
    metadata: string;
  }[];
}

describe('event catalog', () => {
  it('lists the fourteen events of the seed and the six of installations, static route before /webhooks/:id', async () => {
    const res = await svc.app.inject({ url: `${base}/events`, headers: m.auth });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ count: 20, has_more: false, next_cursor: null });
    expect(data.items.map((e: { id: string }) => e.id)).toEqual([
      'order.created',
      'order.paid',
      'order.cancelled',
      'order.fulfilled',
      'cart.abandoned',
      'customer.created',
      'customer.updated',
      'product.created',
      'product.updated',
      'product.deleted',
      'inventory.low_stock',
      'discount.redeemed',
      'payout.processed',
      'subscription.renewed',
      // API.md section 11.1
      'app.installed',
      'app.scopes_updated',
      'app.uninstalled',
      'customers.data_request',
      'customers.redact',
      'store.redact',
    ]);
    expect(data.items[4]).toMatchObject({
      id: 'cart.abandoned',
      name: 'Cart abandoned',
      category: 'carts',
      description: 'an active cart becomes abandoned',
    });
  });

  it('needs a session', async () => {
    const res = await svc.app.inject({ url: `${base}/events` });
    expect(res.statusCode).toBe(401);
  });
});

describe('webhook subscriptions', () => {
  it('creates a webhook with a whsec_ secret shown once, and audits it without the secret', async () => {
    const res = await create(m, { url: 'http://example.com/hook', events: ['order.created', 'order.paid'] });
    expect(res.statusCode).toBe(201);
    const wh = res.json().data;
    expect(wh).toMatchObject({
      url: 'http://example.com/hook',
      events: ['order.created', 'order.paid'],
      description: null,
      status: 'enabled',
      mode: 'test',
      disabled_reason: null,
    });
    expect(wh.id).toMatch(/^wh_/);
    expect(wh.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(wh.secret.slice(6), 'base64')).toHaveLength(32);
    expect(wh.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await svc.app.inject({ url: `${base}/${wh.id}`, headers: m.auth });
    expect(read.statusCode).toBe(200);
    expect(read.json().data.secret).toBeUndefined();
    expect(read.json().data.id).toBe(wh.id);

    const entries = await logs(m, 'webhook.created');
    const entry = entries.find((e) => e.entity_id === wh.id)!;
    expect(entry.entity_type).toBe('webhook');
    expect(entry.metadata).not.toContain('whsec_');
  });

  it('names every unknown event in the error', async () => {
    const res = await create(m, {
      url: 'https://example.com/h',
      events: ['order.created', 'nope.one', 'nope.two'],
    });
    expect(res.statusCode).toBe(400);
    const err = res.json().error;
    expect(err.code).toBe('validation_failed');
    expect(err.message).toContain('nope.one');
    expect(err.message).toContain('nope.two');
    expect(err.details).toEqual([
      { field: 'events[1]', issue: 'nope.one is not an event of the catalog' },
      { field: 'events[2]', issue: 'nope.two is not an event of the catalog' },
    ]);
  });

  it('refuses empty events, relative URLs, other schemes, unknown fields and http in live mode', async () => {
    for (const body of [
      { url: 'https://example.com/h', events: [] },
      { url: '/hook', events: ['order.paid'] },
      { url: 'ftp://example.com/h', events: ['order.paid'] },
      { url: 'https://example.com/h', events: ['order.paid'], secret: 'x' },
      { events: ['order.paid'] },
    ]) {
      const res = await create(m, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
    const live = await create(m, { url: 'http://example.com/h', events: ['order.paid'] }, 'live');
    expect(live.statusCode).toBe(400);
    expect(live.json().error.details[0].field).toBe('url');
    const liveHttps = await create(m, { url: 'https://example.com/h', events: ['order.paid'] }, 'live');
    expect(liveHttps.statusCode).toBe(201);
    expect(liveHttps.json().data.mode).toBe('live');
  });

  it('lists by mode, newest first, with cursors', async () => {
    const other = await signupMerchant(svc.app);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await create(other, { url: `https://example.com/${i}`, events: ['order.paid'] })).json().data.id,
      );
    await create(other, { url: 'https://example.com/live', events: ['order.paid'] }, 'live');
    const first = await svc.app.inject({ url: `${base}?limit=2`, headers: other.auth });
    expect(first.json().data).toMatchObject({ count: 3, has_more: true, next_cursor: ids[1] });
    expect(first.json().data.items.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    const second = await svc.app.inject({
      url: `${base}?limit=2&starting_after=${ids[1]}`,
      headers: other.auth,
    });
    expect(second.json().data).toMatchObject({ count: 3, has_more: false, next_cursor: null });
    expect(second.json().data.items.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
    const live = await svc.app.inject({ url: base, headers: { ...other.auth, 'x-svc-mode': 'live' } });
    expect(live.json().data.count).toBe(1);
  });

  it('updates, enables, disables, rotates and deletes, auditing each', async () => {
    const wh = (await create(m, { url: 'https://example.com/a', events: ['order.paid'] })).json().data;
    const patched = await svc.app.inject({
      method: 'PATCH',
      url: `${base}/${wh.id}`,
      headers: m.auth,
      payload: { url: 'https://example.com/b', events: ['product.created'], description: 'mine' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({
      url: 'https://example.com/b',
      events: ['product.created'],
      description: 'mine',
    });
    const badPatch = await svc.app.inject({
      method: 'PATCH',
      url: `${base}/${wh.id}`,
      headers: m.auth,
      payload: { events: ['x.y'] },
    });
    expect(badPatch.statusCode).toBe(400);

    const disabled = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/disable`,
      headers: m.auth,
    });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().data.status).toBe('disabled');
    const enabled = await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/enable`, headers: m.auth });
    expect(enabled.json().data).toMatchObject({ status: 'enabled', disabled_reason: null });

    const rotated = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/rotate-secret`,
      headers: m.auth,
      payload: { previous_secret_expires_in: 60 },
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().data.secret).toMatch(/^whsec_/);
    const badRotate = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/rotate-secret`,
      headers: m.auth,
      payload: { previous_secret_expires_in: 604_801 },
    });
    expect(badRotate.statusCode).toBe(400);
    const noBody = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/rotate-secret`,
      headers: m.auth,
    });
    expect(noBody.statusCode).toBe(200);

    const del = await svc.app.inject({ method: 'DELETE', url: `${base}/${wh.id}`, headers: m.auth });
    expect(del.statusCode).toBe(204);
    const gone = await svc.app.inject({ url: `${base}/${wh.id}`, headers: m.auth });
    expect(gone.statusCode).toBe(404);

    const actions = (await logs(m, 'webhook.*')).filter((e) => e.entity_id === wh.id).map((e) => e.action);
    expect(actions.sort()).toEqual(
      [
        'webhook.created',
        'webhook.updated',
        'webhook.disabled',
        'webhook.enabled',
        'webhook.secret_rotated',
        'webhook.secret_rotated',
        'webhook.deleted',
      ].sort(),
    );
  });

  it("answers 404 for another merchant's webhook on every route", async () => {
    const wh = (await create(m, { url: 'https://example.com/a', events: ['order.paid'] })).json().data;
    const other = await signupMerchant(svc.app);
    const calls: [string, string][] = [
      ['GET', `${base}/${wh.id}`],
      ['PATCH', `${base}/${wh.id}`],
      ['DELETE', `${base}/${wh.id}`],
      ['POST', `${base}/${wh.id}/enable`],
      ['POST', `${base}/${wh.id}/disable`],
      ['POST', `${base}/${wh.id}/rotate-secret`],
      ['POST', `${base}/${wh.id}/test`],
      ['GET', `${base}/${wh.id}/deliveries`],
      ['GET', `${base}/${wh.id}/deliveries/dlv_x`],
      ['POST', `${base}/${wh.id}/deliveries/dlv_x/retry`],
    ];
    for (const [method, url] of calls) {
      const res = await svc.app.inject({
        method: method as 'GET',
        url,
        headers: other.auth,
        ...(method === 'PATCH' ? { payload: { description: 'x' } } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    // and the other mode of the same merchant does not see it either
    const live = await svc.app.inject({
      url: `${base}/${wh.id}`,
      headers: { ...m.auth, 'x-svc-mode': 'live' },
    });
    expect(live.statusCode).toBe(404);
  });
});

describe('event ingestion', () => {
  const post = (payload: unknown, auth?: string) =>
    svc.app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: auth === undefined ? {} : { authorization: auth },
      payload: payload as Record<string, unknown>,
    });

  it('authenticates with the internal token', async () => {
    const body = { merchant_id: m.merchantId, mode: 'test', type: 'order.paid', data: paid };
    expect((await post(body)).json().error.code).toBe('unauthenticated');
    const wrong = await post(body, 'Bearer nope');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_credential');
    expect((await post(body, 'Bearer internal-token-for-tests')).statusCode).toBe(202);
  });

  it('creates one delivery per enabled webhook of the merchant and mode subscribed to the type', async () => {
    const merchant = await signupMerchant(svc.app);
    const hook = (events: string[], mode = 'test') =>
      create(merchant, { url: 'https://example.com/h', events }, mode);
    await hook(['order.created', 'order.paid']);
    await hook(['order.paid']);
    await hook(['product.created']);
    await hook(['order.paid'], 'live');
    const off = (await hook(['order.paid'])).json().data;
    await svc.app.inject({ method: 'POST', url: `${base}/${off.id}/disable`, headers: merchant.auth });
    const gone = (await hook(['order.paid'])).json().data;
    await svc.app.inject({ method: 'DELETE', url: `${base}/${gone.id}`, headers: merchant.auth });

    const auth = 'Bearer internal-token-for-tests';
    const res = await post(
      { merchant_id: merchant.merchantId, mode: 'test', type: 'order.paid', data: { ...paid, id: 'o1' } },
      auth,
    );
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toEqual({ id: expect.stringMatching(/^evt_/), deliveries: 2 });

    const withId = {
      merchant_id: merchant.merchantId,
      mode: 'test',
      type: 'order.paid',
      data: paid,
      id: 'evt_order-42_A',
    };
    const first = await post(withId, auth);
    expect(first.statusCode).toBe(202);
    expect(first.json().data).toEqual({ id: 'evt_order-42_A', deliveries: 2 });
    const again = await post(withId, auth);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual({ id: 'evt_order-42_A', deliveries: 0, duplicate: true });
  });

  it('refuses unknown types, bad ids, unknown merchants and unknown fields', async () => {
    const auth = 'Bearer internal-token-for-tests';
    const ok = { merchant_id: m.merchantId, mode: 'test', type: 'order.paid', data: paid };
    for (const body of [
      { ...ok, type: 'order.exploded' },
      { ...ok, id: 'evt_' },
      { ...ok, id: `evt_${'a'.repeat(65)}` },
      { ...ok, id: 'evt_bad id' },
      { ...ok, merchant_id: 'mer_unknown' },
      { ...ok, mode: 'prod' },
      { ...ok, extra: 1 },
    ]) {
      const res = await post(body, auth);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });

  it('answers each of many concurrent ingestions for itself (batched writes)', async () => {
    const merchant = await signupMerchant(svc.app);
    await create(merchant, { url: 'https://example.com/h', events: ['order.paid'] });
    const auth = 'Bearer internal-token-for-tests';
    const ok = { merchant_id: merchant.merchantId, mode: 'test', type: 'order.paid', data: paid };
    const bodies = [
      ...Array.from({ length: 30 }, (_, i) => ({ ...ok, id: `evt_batch_${i}` })),
      { ...ok, id: 'evt_batch_0' },
      { ...ok, id: 'evt_batch_1' },
      { ...ok, merchant_id: 'mer_nobody' },
      { ...ok, type: 'product.created', data: sampleData('product.created') },
    ];
    const answers = await Promise.all(bodies.map((b) => post(b, auth)));
    const created = answers.filter((a) => a.statusCode === 202);
    expect(created).toHaveLength(31);
    expect(created.filter((a) => a.json().data.deliveries === 1)).toHaveLength(30);
    const duplicates = answers.filter((a) => a.statusCode === 200);
    expect(duplicates.map((a) => a.json().data)).toEqual([
      { id: expect.stringMatching(/^evt_batch_[01]$/), deliveries: 0, duplicate: true },
      { id: expect.stringMatching(/^evt_batch_[01]$/), deliveries: 0, duplicate: true },
    ]);
    expect(answers.filter((a) => a.statusCode === 400)).toHaveLength(1);
    const count = await svc.ctx.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('merchant_id', '=', merchant.merchantId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(30);
  });

  it('does not exist without a configured token', async () => {
    const bare = await startTestService({ shareWith: svc, env: { SVC_INTERNAL_TOKEN: '' } });
    try {
      const res = await bare.app.inject({
        method: 'POST',
        url: '/internal/v1/events',
        headers: { authorization: 'Bearer x' },
        payload: {},
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
