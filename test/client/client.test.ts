// The typed client (clients/typescript) against a listening service: the generated types are the server's
// schemas, so a wrong schema fails type checking here or an assertion below. Keys, apps, webhooks, logs and
// the public routes, through the client only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The package's source: outsiders install its build (test/client/fresh-project.test.ts does).
import {
  SvcError,
  createSvcClient,
  paginate,
  unwrap,
  type SvcClient,
} from '../../clients/typescript/src/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

let svc: TestService;
let m: TestMerchant;
let merchant: SvcClient;
let rx: Receiver;
beforeAll(async () => {
  svc = await startTestService({ listen: true });
  m = await signupMerchant(svc.app);
  merchant = createSvcClient({ baseUrl: svc.url, token: m.token, mode: 'test' });
  rx = await startReceiver();
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

describe('the typed client', () => {
  it('creates and lists key pairs, then calls the public API with them', async () => {
    const pair = await unwrap(
      merchant.POST('/api/v1/merchant/api-keys', { body: { name: 'From the client' } }),
    );
    expect(pair.secret_key).toMatch(/^svc_test_sk_/);
    const keys = [];
    for await (const key of paginate((after) =>
      merchant.GET('/api/v1/merchant/api-keys', { params: { query: { limit: 1, starting_after: after } } }),
    ))
      keys.push(key.id);
    expect(keys).toEqual([pair.id]);

    const server = createSvcClient({ baseUrl: svc.url, token: pair.secret_key });
    const countries = await unwrap(server.GET('/api/public/v1/payments/supported-countries'));
    expect(countries.items).toHaveLength(249);
    const cart = await unwrap(
      server.POST('/api/public/v1/stores/{storeID}/cart', { params: { path: { storeID: m.storeId } } }),
    );
    expect(cart).toMatchObject({ store_id: m.storeId, status: 'active', items: [] });

    const browser = createSvcClient({ baseUrl: svc.url, token: pair.publishable_key });
    await expect(
      unwrap(
        browser.POST('/api/public/v1/stores/{storeID}/cart', { params: { path: { storeID: m.storeId } } }),
      ),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('creates, reads and updates an OAuth app', async () => {
    const app = await unwrap(
      merchant.POST('/api/v1/merchant/developer/apps', {
        body: {
          name: 'Typed app',
          redirect_uris: ['https://app.example.com/cb'],
          allowed_scopes: ['public:read'],
        },
      }),
    );
    expect(app.client_secret).toMatch(/^svc_test_cs_/);
    const updated = await unwrap(
      merchant.PATCH('/api/v1/merchant/developer/apps/{appID}', {
        params: { path: { appID: app.id } },
        body: { name: 'Typed app 2' },
      }),
    );
    expect(updated.name).toBe('Typed app 2');
    const read = await unwrap(
      merchant.GET('/api/v1/merchant/developer/apps/{appID}', { params: { path: { appID: app.id } } }),
    );
    expect(read).toMatchObject({ id: app.id, name: 'Typed app 2', allowed_scopes: ['public:read'] });
  });

  it('creates a webhook, sends a test event and reads the delivery', async () => {
    const webhook = await unwrap(
      merchant.POST('/api/v1/merchant/webhooks', {
        body: { url: `${rx.url}/typed`, events: ['order.created'] },
      }),
    );
    expect(webhook.secret).toMatch(/^whsec_/);
    expect(webhook.health.deliveries_24h).toBe(0);
    const delivery = await unwrap(
      merchant.POST('/api/v1/merchant/webhooks/{webhookID}/test', {
        params: { path: { webhookID: webhook.id } },
      }),
    );
    expect(delivery).toMatchObject({ status: 'succeeded', test: true, attempt_count: 1 });
    const list = await unwrap(
      merchant.GET('/api/v1/merchant/webhooks/{webhookID}/deliveries', {
        params: { path: { webhookID: webhook.id }, query: { status: 'succeeded' } },
      }),
    );
    expect(list.items.map((d) => d.id)).toEqual([delivery.id]);
  });

  it('pages through every log entry', async () => {
    const ids: string[] = [];
    for await (const entry of paginate((after) =>
      merchant.GET('/api/v1/merchant/developer/logs', {
        params: { query: { limit: 2, starting_after: after } },
      }),
    ))
      ids.push(entry.action);
    expect(ids).toEqual(
      expect.arrayContaining(['api_key.created', 'developer_app.created', 'webhook.created']),
    );
    expect(ids.length).toBeGreaterThanOrEqual(5);
  });

  it('turns error answers into SvcError with the code and the request id', async () => {
    const err = await unwrap(
      merchant.GET('/api/v1/merchant/webhooks/{webhookID}', {
        params: { path: { webhookID: 'wh_missing' } },
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', requestId: expect.stringMatching(/^req_/) });
    const invalid = await unwrap(
      merchant.POST('/api/v1/merchant/webhooks', { body: { url: 'not a url', events: [] } }),
    ).catch((e: unknown) => e as SvcError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((invalid as SvcError).details.length).toBeGreaterThan(0);
  });

  it('sends one Idempotency-Key per POST, and retries 503 and 429 after Retry-After', async () => {
    // A stand-in for a proxy in front of the service: busy twice, then the service's answer.
    const seen: { key: string | undefined; at: number }[] = [];
    const flaky = createServer((req, res) => {
      seen.push({ key: req.headers['idempotency-key'] as string | undefined, at: Date.now() });
      req.resume();
      if (seen.length === 1) return res.writeHead(503, { 'retry-after': '0' }).end('{}');
      if (seen.length === 2) return res.writeHead(429, { 'retry-after': '1' }).end('{}');
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"data":{"id":"key_x"}}');
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    try {
      const client = createSvcClient({
        baseUrl: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`,
      });
      const answer = await unwrap(client.POST('/api/v1/merchant/api-keys', { body: {} }));
      expect(answer.id).toBe('key_x');
      expect(seen).toHaveLength(3);
      expect(new Set(seen.map((s) => s.key)).size).toBe(1);
      expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(900);
    } finally {
      flaky.close();
    }
  });
});
