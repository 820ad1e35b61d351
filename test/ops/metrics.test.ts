// Metrics and operator logs on a real service with real delivery workers and real receivers: the counters
// scraped from the metrics listener match what the receivers saw, the queue gauges read the database, the
// API port does not serve /metrics, and the log lines an operator needs are there without a credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { captureLogs } from '../support/logs.ts';
import { createWebhook, deliveries, emit, INTERNAL_TOKEN, type CreatedWebhook } from '../webhooks/helpers.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { createKey, keyCall } from '../api-keys/keys.ts';

const EVENTS = 12;

/** One scrape, parsed: `name{labels}` -> value. */
async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  const values = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}

let svc: TestService;
let m: TestMerchant;
let ok: Receiver;
let failing: Receiver;
let gone: Receiver;
let hooks: CreatedWebhook[];
const { stream: logStream, lines, raw } = captureLogs();

beforeAll(async () => {
  ok = await startReceiver(() => ({ status: 200 }));
  failing = await startReceiver(() => ({ status: 500, body: 'boom' }));
  gone = await startReceiver(() => ({ status: 410 }));
  svc = await startTestService({
    workers: true,
    listen: true,
    logStream,
    env: {
      SVC_LOG_LEVEL: 'info',
      SVC_METRICS_PORT: '0',
      SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
      // one retry an hour later: the failed deliveries stay scheduled for the queue gauges
      SVC_WEBHOOK_RETRY_SCHEDULE: '3600',
    },
  });
  m = await signupMerchant(svc.app);
  hooks = [
    await createWebhook(svc, m, `${ok.url}/ok`),
    await createWebhook(svc, m, `${failing.url}/fail`),
    await createWebhook(svc, m, `${gone.url}/gone`),
  ];
}, 180_000); // the first service of a run clones its template database: slow on a loaded machine
afterAll(async () => {
  await svc?.close();
  await Promise.all([ok, failing, gone].map((r) => r?.close()));
});

describe('metrics', () => {
  it('serves /metrics on its own listener only, never on the API port', async () => {
    expect(svc.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(svc.metricsUrl).not.toBe(svc.url);
    expect((await fetch(`${svc.url}/metrics`)).status).toBe(404);
    const values = await scrape(svc.metricsUrl!);
    expect(values.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('counts a burst of deliveries with failures as the receivers saw it', async () => {
    await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => emit(svc, m, 'order.created', { id: `ord_${i}` })),
    );
    await ok.waitFor(EVENTS);
    await failing.waitFor(EVENTS);
    await gone.waitFor(1);
    const values = await eventually(
      async () => {
        const v = await scrape(svc.metricsUrl!);
        const attempts =
          (v.get('svc_delivery_attempts_total{outcome="2xx"}') ?? 0) +
          (v.get('svc_delivery_attempts_total{outcome="5xx"}') ?? 0) +
          (v.get('svc_delivery_attempts_total{outcome="4xx"}') ?? 0);
        const seen = ok.received.length + failing.received.length + gone.received.length;
        // every attempt recorded, and the queue read after that (its reading is cached for 5 s)
        return attempts === seen &&
          v.get('svc_delivery_queue_depth{state="due"}') === 0 &&
          v.get('svc_delivery_queue_depth{state="scheduled"}') === failing.received.length
          ? v
          : undefined;
      },
      { timeoutMs: 20_000, what: 'the metrics to count every attempt' },
    );
    expect(values.get('svc_delivery_attempts_total{outcome="2xx"}')).toBe(ok.received.length);
    expect(values.get('svc_delivery_attempts_total{outcome="5xx"}')).toBe(failing.received.length);
    expect(values.get('svc_delivery_attempts_total{outcome="4xx"}')).toBe(gone.received.length);
    expect(values.get('svc_events_ingested_total{type="order.created"}')).toBe(EVENTS);
    // the gone receiver's first 410 disables its webhook, and events ingested after that enqueue nothing for it:
    // on a slow machine the burst is still being ingested when that happens
    const toGone = (await deliveries(svc, m, hooks[2]!.id)).count;
    expect(toGone).toBeGreaterThanOrEqual(1);
    expect(values.get('svc_deliveries_enqueued_total')).toBe(2 * EVENTS + toGone);
    const attempts = ok.received.length + failing.received.length + gone.received.length;
    expect(values.get('svc_delivery_attempt_duration_seconds_count')).toBe(attempts);
    expect(values.get('svc_delivery_first_attempt_latency_seconds_count')).toBe(attempts);
    expect(values.get('svc_webhooks_auto_disabled_total{reason="gone"}')).toBe(1);
    expect(values.get('svc_delivery_queue_depth{state="leased"}')).toBe(0);
    expect(values.get('svc_delivery_oldest_due_age_seconds')).toBe(0);
    expect(
      values.get('svc_http_requests_total{route="/internal/v1/events",method="POST",status_class="2xx"}'),
    ).toBe(EVENTS);
  });

  it('counts credential cache hits and misses, and auth failures by reason', async () => {
    const key = await createKey(svc.app, m);
    const call = (headers: Record<string, string>) =>
      svc.app.inject({ url: '/api/public/v1/payments/supported-countries', headers });
    await call({ authorization: `Bearer ${key.secret_key}` });
    await call({ authorization: `Bearer ${key.secret_key}` });
    await call({});
    await call({ authorization: `Bearer ${key.secret_key}`, 'x-svc-mode': 'live' });
    const v = await scrape(svc.metricsUrl!);
    expect(v.get('svc_credential_cache_total{kind="secret_key",result="miss"}')).toBe(1);
    expect(v.get('svc_credential_cache_total{kind="secret_key",result="hit"}')).toBe(2);
    expect(v.get('svc_auth_failures_total{reason="unauthenticated"}')).toBe(1);
    expect(v.get('svc_auth_failures_total{reason="mode"}')).toBe(1);
    // by route pattern, never the raw URL
    expect([...v.keys()].some((k) => k.includes('route="/api/public/v1/payments/supported-countries"'))).toBe(
      true,
    );
  });
});

describe('logs at info', () => {
  it('say which delivery failed and when it is retried, which webhook was disabled and why', () => {
    const failed = lines.filter((l) => l.msg === 'delivery attempt failed; retry scheduled');
    expect(failed.length).toBe(failing.received.length);
    expect(failed[0]).toMatchObject({
      webhook_id: hooks[1]!.id,
      attempt: 1,
      outcome: '5xx',
      status: 500,
      error: 'http_status',
    });
    expect(failed[0]!.delivery_id).toMatch(/^dlv_/);
    // the schedule's one step, 3600 s with +-20% jitter, from the time of the line
    const delay = Date.parse(String(failed[0]!.next_attempt_at)) - Number(failed[0]!.time);
    expect(delay).toBeGreaterThanOrEqual(0.8 * 3_600_000 - 1000);
    expect(delay).toBeLessThanOrEqual(1.2 * 3_600_000 + 1000);
    const disabled = lines.find((l) => l.msg === 'webhook disabled by the delivery engine');
    expect(disabled).toMatchObject({ webhook_id: hooks[2]!.id, reason: 'gone' });
    const started = lines.find((l) => l.msg === 'service started');
    expect(started).toMatchObject({ settings: { database: expect.any(String), master_keys: 1 } });
  });

  it('say that a key was revoked, with the request id', async () => {
    const key = await createKey(svc.app, m);
    const res = await keyCall(svc.app, m, key.id, 'revoke');
    const revoked = lines.find((l) => l.msg === 'API key revoked');
    expect(revoked).toMatchObject({ key_id: key.id, request_id: res.headers['x-request-id'] });
  });

  it('never carry a credential', async () => {
    await svc.close(); // the stop lines too
    expect(lines.some((l) => l.msg === 'service stopped')).toBe(true);
    const all = raw.join('\n');
    expect(all).not.toMatch(/svc_(test_|live_)?(sk|pk|cs|oac|oat|ort|mst)_[0-9A-Za-z]{6}/);
    expect(all).not.toMatch(/whsec_[0-9A-Za-z+/]{6}/);
    expect(all).not.toContain(m.token);
    expect(all).not.toContain(INTERNAL_TOKEN);
    expect(all).not.toContain(svc.config.masterKey.toString('base64'));
    for (const h of hooks) expect(all).not.toContain(h.secret);
  });
});
