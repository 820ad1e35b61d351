// The typed `data` of the 20 event types (API.md sections 10 and 11.1): one schema and example per type, published on
// the catalog and in the OpenAPI `webhooks` section, carried by test events, and enforced at ingestion.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { sweepAbandonedCarts } from '../../src/modules/carts/index.ts';
import {
  EVENT_CATALOG,
  EVENT_PAYLOADS,
  isServiceRecorded,
  mergeData,
  payloadProblems,
  sampleData,
} from '../../src/modules/events/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN, base, createWebhook } from '../webhooks/helpers.ts';

const TYPES = EVENT_CATALOG.map((e) => e.id);

// An independent validator, not the service's: the published schema must stand on its own.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const checkWith = (schema: object, data: unknown) => {
  const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);
  return validate(data) ? [] : validate.errors;
};

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
const clock = new TestClock();
beforeAll(async () => {
  svc = await startTestService({
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_CART_ABANDON_AFTER: '60' },
    clock,
  });
  m = await signupMerchant(svc.app);
  rx = await startReceiver();
  // Opening the embedded database takes most of a minute on a loaded machine.
}, 180_000);
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

const ingest = (type: string, data: unknown) =>
  svc.app.inject({
    method: 'POST',
    url: '/internal/v1/events',
    headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
    payload: { merchant_id: m.merchantId, mode: 'test', type, data },
  });

describe('schemas and examples', () => {
  it('defines exactly one schema and example per event type, and every example validates, open and closed', () => {
    // The seed's 14, and the six of API.md section 11.1 (installations and privacy).
    expect(TYPES).toHaveLength(20);
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual([...TYPES].sort());
    for (const type of TYPES) {
      const { schema, example } = EVENT_PAYLOADS[type]!;
      expect(payloadProblems(type, example), type).toEqual([]);
      expect(payloadProblems(type, example, true), type).toEqual([]);
      expect(checkWith(schema, example), type).toEqual([]);
      expect(typeof example.id, type).toBe('string');
    }
  });

  it('has the fields a receiver needs', () => {
    const order = EVENT_PAYLOADS['order.created']!.schema as { required: string[] };
    for (const f of ['id', 'number', 'status', 'currency', 'totals', 'line_items', 'customer_id'])
      expect(order.required).toContain(f);
    const payout = EVENT_PAYLOADS['payout.processed']!.example as { destination: { last4: string } };
    expect(payout).toMatchObject({ amount: expect.any(Number), currency: 'EUR', arrival_date: '2026-11-24' });
    expect(payout.destination.last4).toMatch(/^\d{4}$/);
    const cart = EVENT_PAYLOADS['cart.abandoned']!.schema as { required: string[] };
    expect(cart.required).toEqual(expect.arrayContaining(['store_id', 'created_at', 'updated_at']));
  });

  it('the cart.abandoned the service emits itself matches its schema', async () => {
    const made = new Date(clock.now());
    const id = newId('cart', made.getTime());
    await svc.ctx.db
      .insertInto('carts')
      .values({ id, merchant_id: m.merchantId, mode: 'test', store_id: m.storeId, updated_at: made })
      .execute();
    clock.advance(61_000);
    expect(await sweepAbandonedCarts(svc.ctx)).toBe(1);
    const row = await svc.ctx.db
      .selectFrom('events')
      .select('payload')
      .where('merchant_id', '=', m.merchantId)
      .where('type', '=', 'cart.abandoned')
      .executeTakeFirstOrThrow();
    const data = (JSON.parse(row.payload) as { data: { id: string } }).data;
    expect(data.id).toBe(id);
    expect(payloadProblems('cart.abandoned', data)).toEqual([]);
  });
});

describe('ingestion validates data against the schema of its type', () => {
  it('refuses a violating payload with 400 and the path of each mismatch in details', async () => {
    const bad = mergeData(sampleData('order.created'), {
      currency: 'euro',
      totals: { total: 'lots' },
    }) as { line_items: Record<string, unknown>[] };
    delete bad.line_items[1]!.quantity;
    const res = await ingest('order.created', bad);
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error).toMatchObject({ code: 'validation_failed', request_id: expect.stringMatching(/\S/) });
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'data.currency', issue: 'is not in the expected form' },
        { field: 'data.totals.total', issue: 'must be a whole number' },
        { field: 'data.line_items[1].quantity', issue: 'is required' },
      ]),
    );
    expect(error.message).toMatch(/^data\./);

    const missing = await ingest('payout.processed', { id: 'po_1' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toContainEqual({ field: 'data.destination', issue: 'is required' });

    const notObject = await ingest('product.deleted', 'gone');
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json().error.details[0].field).toBe('data');
  });

  it('accepts every example, and keeps unknown extra fields as sent', async () => {
    // Every type the platform records; the service records those about one installation itself (400).
    for (const type of TYPES)
      expect((await ingest(type, sampleData(type))).statusCode, type).toBe(
        isServiceRecorded(type) ? 400 : 202,
      );
    const data = { ...sampleData('order.paid'), gift_note: 'Happy birthday', loyalty: { tier: 'gold' } };
    const res = await ingest('order.paid', data);
    expect(res.statusCode).toBe(202);
    const event = await svc.app.inject({
      url: `/api/v1/merchant/events/${res.json().data.id as string}`,
      headers: m.auth,
    });
    expect(event.json().data.data).toEqual(data);
  });
});

describe('where the schemas are published', () => {
  it('the catalog gives each event type its schema and example', async () => {
    const res = await svc.app.inject({ url: `${base}/events`, headers: m.auth });
    expect(res.statusCode).toBe(200);
    const items = res.json<{
      data: { items: { id: string; name: string; schema: object; example: object }[] };
    }>().data.items;
    expect(items.map((i) => i.id)).toEqual(TYPES);
    for (const item of items) {
      expect(item.name).toBeTruthy();
      expect(item.schema).toMatchObject({ type: 'object', properties: expect.any(Object) });
      expect(item.example).toEqual(EVENT_PAYLOADS[item.id]!.example);
      expect(checkWith(item.schema, item.example), item.id).toEqual([]);
    }
  });

  it('the OpenAPI document lists all 20 under webhooks and validates as OpenAPI 3.1', async () => {
    const doc = (await svc.app.inject({ url: '/api/openapi.json' })).json();
    expect(Object.keys(doc.webhooks as object)).toEqual(TYPES);
    for (const type of TYPES) {
      const op = doc.webhooks[type].post;
      const media = op.requestBody.content['application/json'];
      expect(media.example).toMatchObject({ type, api_version: 'v1', data: EVENT_PAYLOADS[type]!.example });
      const envelope = doc.components.schemas[media.schema.$ref.split('/').pop()];
      expect(envelope.properties.type.const).toBe(type);
      expect(op.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    }
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('a test event carries a sample of its type from the merchant store, valid against its schema', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/test`, ['discount.redeemed']);
    const res = await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/test`, headers: m.auth });
    expect(res.statusCode).toBe(200);
    const [got] = await rx.waitFor(1);
    const data = JSON.parse(got!.body).data as Record<string, unknown>;
    const example = EVENT_PAYLOADS['discount.redeemed']!.example;
    expect(payloadProblems('discount.redeemed', data, true)).toEqual([]);
    expect(data).toMatchObject({ store_id: m.storeId, code: example.code, kind: example.kind });
    expect(data.id).not.toBe(example.id);
  });
});
