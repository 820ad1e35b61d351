// The hot paths, each counted (never timed) and held to its line of test/cost/budgets.ts, on PostgreSQL and
// on PGlite: the statements and round trips it sends, and the node:crypto operations it calls. Each path is
// warmed once (caches, a pool's connections, a day's partition), then counted three times, which must agree.
// The service runs without its workers, so no background loop runs but those a use starts (last uses, the
// request log's one-second batch), and the meter counts only what runs in the operation's own async context
// (meter.ts). Where a path needs fresh material (a code, a refresh token, events to deliver), it is made
// before the count.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { TestClock } from '../support/clock.ts';
import { bearer, createKey, type TestKey } from '../api-keys/keys.ts';
import { basic, createApp, exchange, getCode, refresh, type TestApp } from '../oauth/helpers.ts';
import { createWebhook, emit, INTERNAL_TOKEN } from '../webhooks/helpers.ts';
import type { Requests, RequestEntry } from '../../src/modules/requests/index.ts';
import type { DeliveryModule } from '../../src/modules/delivery/index.ts';
import type { Outbox } from '../../src/modules/outbox/index.ts';
import { claimPlainDeliveries } from '../../src/modules/delivery/claim-plain-deliveries.repository.ts';
import { applyOutcomes, runAttempt } from '../../src/modules/delivery/attempt.ts';
import { leaseMs, PER_WEBHOOK, workerId } from '../../src/modules/delivery/worker.ts';
import type { CostPath } from './budgets.ts';
import { expectBudget, startMeter, type Meter, type Tally } from './meter.ts';

const RUNS = 3;

let svc: TestService;
let meter: Meter;
let receiver: Server;
let receiverUrl: string;
const clock = new TestClock();
let shop: TestMerchant;
let key: TestKey;
let dev: TestMerchant;
let client: TestApp;
let tokens: { access_token: string; refresh_token: string };

beforeAll(async () => {
  svc = await startTestService({ clock, env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  shop = await signupMerchant(svc.app, 'Shop');
  key = await createKey(svc.app, shop);
  dev = await signupMerchant(svc.app, 'Dev Co');
  client = await createApp(svc.app, dev);
  const { code, verifier } = await getCode(svc.app, client, shop);
  tokens = await exchange(svc.app, client, code, verifier);
  // A receiver that reads each delivery and answers 204.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  meter = startMeter();
});
afterAll(async () => {
  meter?.close();
  await svc?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Warms the path with one unmeasured run, then counts RUNS runs of it; `prepare` runs before each, uncounted. */
async function count<M = undefined>(
  path: CostPath,
  operation: (material: M) => Promise<void>,
  prepare: () => Promise<M> = async () => undefined as M,
): Promise<void> {
  await operation(await prepare());
  const runs: Tally[] = [];
  for (let i = 0; i < RUNS; i++) {
    const material = await prepare();
    runs.push((await meter.measure(() => operation(material))).tally);
  }
  expectBudget(path, runs);
}

/** An inject that must answer `status`. */
async function call(status: number, options: InjectOptions) {
  const res = await svc.app.inject(options);
  expect(res.statusCode, res.body).toBe(status);
  return res;
}

const introspect = (token: string, headers: Record<string, string>) =>
  call(200, {
    method: 'POST',
    url: '/api/public/v1/oauth/introspect',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams({ token }).toString(),
  }).then((res) => expect(res.json().active).toBe(true));

describe('the public interface', () => {
  it('public read', () =>
    count('public read', async () => {
      await call(200, {
        url: '/api/public/v1/payments/supported-countries',
        headers: bearer(key.secret_key),
      });
    }));

  it('public write', () =>
    count('public write', async () => {
      await call(201, {
        method: 'POST',
        url: `/api/public/v1/stores/${shop.storeId}/cart`,
        headers: bearer(key.secret_key),
      });
    }));

  let n = 0;
  it('public write, idempotent', () =>
    count('public write, idempotent', async () => {
      await call(201, {
        method: 'POST',
        url: `/api/public/v1/stores/${shop.storeId}/cart`,
        headers: { ...bearer(key.secret_key), 'idempotency-key': `cost-${n++}` },
      });
    }));
});

describe('introspection', () => {
  const platform = () => ({ authorization: `Bearer ${INTERNAL_TOKEN}` });
  it('of a secret key', () =>
    count('introspection, secret key', () => introspect(key.secret_key, platform())));
  it('of a publishable key', () =>
    count('introspection, publishable key', () => introspect(key.publishable_key, platform())));
  it('of an access token', () =>
    count('introspection, access token', () => introspect(tokens.access_token, platform())));
  it('of its own access token, by the app', () =>
    count('introspection by the app, access token', () => introspect(tokens.access_token, basic(client))));
});

describe('the token endpoint', () => {
  it('refresh', () => {
    let current = tokens.refresh_token;
    return count('refresh', async () => {
      const res = await refresh(svc.app, client, current);
      expect(res.statusCode, res.body).toBe(200);
      current = res.json().refresh_token;
    });
  });

  it('code exchange', () =>
    count(
      'code exchange',
      async ({ code, verifier }) => {
        await exchange(svc.app, client, code, verifier);
      },
      () => getCode(svc.app, client, shop),
    ));
});

describe('webhooks', () => {
  const delivery = () => svc.modules.find((x) => x.name === 'delivery') as DeliveryModule;
  const outbox = () => svc.modules.find((x) => x.name === 'outbox') as Outbox;

  /** One cycle of the delivery worker (worker.ts): a claim, the attempts, their outcomes in one batch. */
  async function cycle(worker: string, expected: number): Promise<void> {
    const { ctx } = svc;
    const claim = await claimPlainDeliveries(
      { db: ctx.db },
      {
        worker,
        now: new Date(clock.now()),
        limit: 100,
        leaseMs: leaseMs(ctx),
        perWebhook: 2 * PER_WEBHOOK,
        inFlight: {},
        skipSaturated: false,
        horizonMs: 1000,
      },
    );
    expect(claim.rows).toHaveLength(expected);
    const sending = delivery().state.sending;
    const outcomes = await Promise.all(claim.rows.map((row) => runAttempt(ctx, sending, row)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    await applyOutcomes(ctx, worker, outcomes);
  }

  for (const size of [1, 10] as const) {
    it(`a delivery cycle of ${size}`, async () => {
      const m = await signupMerchant(svc.app, `Receiver ${size}`);
      await createWebhook(svc, m, receiverUrl);
      const worker = workerId();
      await count(
        size === 1 ? 'delivery cycle, 1 delivery' : 'delivery cycle, 10 deliveries',
        () => cycle(worker, size),
        async () => {
          for (let i = 0; i < size; i++) await emit(svc, m);
        },
      );
    });
  }

  // Live mode, as the platform's traffic is; a test-mode event also wakes `svc listen` streams.
  const ingestions: [CostPath, number, 'live' | 'test'][] = [
    ['ingestion, 1 delivery', 1, 'live'],
    ['ingestion, 3 deliveries', 3, 'live'],
    ['ingestion, test mode, 1 delivery', 1, 'test'],
  ];
  for (const [path, size, mode] of ingestions) {
    it(path, async () => {
      const m = await signupMerchant(svc.app, `Subscriber ${path}`);
      // Never sent here (no worker runs): a live webhook takes an https address.
      const url = mode === 'live' ? 'https://hooks.example.com/cost' : receiverUrl;
      for (let i = 0; i < size; i++) await createWebhook(svc, m, url, ['order.created'], mode);
      const { ingestion } = outbox().state;
      await count(path, async () => {
        const { deliveries } = await emit(svc, m, 'order.created', { id: 'ord_1' }, mode);
        expect(deliveries).toBe(size);
        // The wake-up NOTIFY goes after the answer; one still in flight would take the next call's in with it.
        await Promise.all([ingestion.deliveries.drained(), ingestion.listeners.drained()]);
      });
    });
  }
});

describe('the merchant interface', () => {
  it('audit page', () =>
    count('audit page', async () => {
      const res = await call(200, { url: '/api/v1/merchant/developer/logs', headers: shop.auth });
      expect(res.json().data.items.length).toBeGreaterThan(0);
    }));

  // A query the route refuses (limit 0) after the session check: nothing of the route itself runs.
  it('session check', () =>
    count('session check', async () => {
      await call(400, { url: '/api/v1/merchant/api-keys?limit=0', headers: shop.auth });
    }));
});

describe('the request log', () => {
  const recorder = () => (svc.modules.find((x) => x.name === 'requests') as Requests).batch;
  let made = 0;
  const entry = (): RequestEntry => ({
    createdAt: clock.now(),
    merchantId: shop.merchantId,
    mode: 'test',
    requestId: `req_cost_${made++}`,
    method: 'GET',
    path: '/api/public/v1/payments/supported-countries',
    route: '/api/public/v1/payments/supported-countries',
    status: 200,
    durationMs: 0.5,
    credentialType: 'secret_key',
    credentialId: key.id,
    credentialLast4: key.secret_key.slice(-4),
    ip: '127.0.0.1',
    userAgent: 'cost-test',
    idempotencyKey: null,
    replayed: false,
    error: null,
    appId: null,
    storeId: null,
    forOwner: false,
  });

  // Offered here, not by 1,000 calls: the recorder's one-second batch would close on its own under calls that
  // take longer than that, and split the count.
  it('flush of 1,000 calls', () =>
    count(
      'request-log flush, 1,000 calls',
      () => recorder().flush(),
      async () => {
        await recorder().flush();
        for (let i = 0; i < 1000; i++) expect(recorder().offer(entry())).toBe(true);
      },
    ));
});
