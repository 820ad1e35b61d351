// A fleet split by role on one PostgreSQL (API.md 12.1): an `api` process (SVC_ROLE=api) takes events, calls
// and audit entries and runs no background loop, so alone it delivers and seals nothing, while it still
// writes the request log of the calls it served; a `worker` process (`svc start --role worker`) serves no API,
// only /healthz, /readyz and /metrics on SVC_METRICS_PORT, and delivers and seals what the api took: every
// event once at the receiver, never one attempt twice at once, every audit entry sealed once, gapless.
// (pg project only: see vitest.config.ts.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { call, freePort, startProcess, stopAll, type ServiceProcess } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { emitMany, merchantWithWebhook } from './webhooks-processes.ts';

const EVENTS = 60;
const COUNTRIES = '/api/public/v1/payments/supported-countries';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let rx: Receiver;
let client: pg.Client;
let api: ServiceProcess;

beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  rx = await startReceiver(() => ({ status: 200, delayMs: Math.floor(Math.random() * 10) }));
  api = await startProcess(database.url!, { SVC_ROLE: 'api' });
}, 120_000);
afterAll(async () => {
  await stopAll();
  await client?.end();
  await rx?.close();
  await database?.drop();
});

async function count(query: string, params: unknown[] = []): Promise<number> {
  const { rows } = await client.query<{ n: number }>(query, params);
  return rows[0]!.n;
}

let m: Awaited<ReturnType<typeof merchantWithWebhook>>;
let ids: string[];

it('an api process alone takes events, calls and audit entries, and delivers and seals none of them', async () => {
  m = await merchantWithWebhook(api.url, `${rx.url}/roles`);
  const key = await call(api.url, '/api/v1/merchant/api-keys', { method: 'POST', token: m.token, body: {} });
  expect(key.status).toBe(201);
  expect((await call(api.url, COUNTRIES, { token: key.data.secret_key })).status).toBe(200);
  ids = await emitMany([api.url], m.merchantId, EVENTS);
  expect(new Set(ids).size).toBe(EVENTS);

  // The request log's buffer is the api's own: the call it served is written without any worker.
  await eventually(
    async () =>
      (await count(`select count(*)::int as n from request_logs where path = $1`, [COUNTRIES])) === 1,
    { what: 'the api process to write its request log' },
  );
  // eslint-disable-next-line no-restricted-syntax -- proving an absence: three of a worker's 1 s claim polls and sealer runs
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(rx.received).toEqual([]);
  const pending = `select count(*)::int as n from deliveries
     where webhook_id = $1 and status = 'pending' and locked_by is null`;
  expect(await count(pending, [m.webhookId])).toBe(EVENTS);
  expect(await count(`select count(*)::int as n from delivery_attempts`)).toBe(0);
  expect(await count(`select count(*)::int as n from audit_chain`)).toBe(0);
  expect(await count(`select count(*)::int as n from audit_pending`)).toBeGreaterThan(0);
}, 120_000);

it('a worker serves /healthz, /readyz and /metrics on SVC_METRICS_PORT, and no API', async () => {
  const port = await freePort();
  const probes = await freePort();
  const worker = await startProcess(
    database.url!,
    { PORT: String(port), SVC_METRICS_PORT: String(probes) },
    { args: ['bin/svc.js', 'start', '--role', 'worker'] },
  );
  expect(worker.url).toBe(`http://127.0.0.1:${probes}`);
  expect(await call(worker.url, '/healthz')).toEqual({ status: 200, data: { status: 'ok' } });
  expect(await call(worker.url, '/readyz')).toEqual({ status: 200, data: { status: 'ready' } });
  const metrics = await fetch(`${worker.url}/metrics`);
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toMatch(/^svc_/m);
  for (const [method, path] of [
    ['GET', '/api/v1/merchant/me'],
    ['POST', '/api/v1/merchant/auth/login'],
    ['GET', COUNTRIES],
    ['POST', '/internal/v1/events'],
    ['GET', '/api/openapi.json'],
    ['GET', '/dashboard'],
  ] as const) {
    const res = await fetch(`${worker.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${m.token}` },
    });
    expect(res.status, `${method} ${path}`).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  }
  // PORT is not listened on: the worker has no API port at all.
  await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
}, 120_000);

it('the worker delivers what the api took, each once, and seals every audit entry once', async () => {
  await eventually(
    async () =>
      (await count(
        `select count(*)::int as n from deliveries where webhook_id = $1 and status = 'succeeded'`,
        [m.webhookId],
      )) === EVENTS,
    { timeoutMs: 60_000, intervalMs: 200, what: 'the worker to deliver every event' },
  );
  const arrived = rx.received.filter((r) => r.path === '/roles').map((r) => String(r.headers['webhook-id']));
  expect(arrived.toSorted()).toEqual(ids.toSorted());
  expect(rx.overlaps).toEqual([]);
  expect(await count(`select count(*)::int as n from delivery_attempts`)).toBe(EVENTS);

  // Entries the api writes now are sealed by the worker too.
  expect(
    (await call(api.url, '/api/v1/merchant/api-keys', { method: 'POST', token: m.token, body: {} })).status,
  ).toBe(201);
  await eventually(async () => (await count(`select count(*)::int as n from audit_pending`)) === 0, {
    timeoutMs: 30_000,
    what: 'the worker to seal every entry',
  });
  const entries = await count(`select count(*)::int as n from audit_logs where via_writer`);
  const { rows } = await client.query<{ merchant_id: string; mode: string; n: number; last: number }>(
    `select merchant_id, mode, count(*)::int as n, count(distinct log_id)::int as logs, max(sequence)::int as last
       from audit_chain group by merchant_id, mode`,
  );
  // Each entry has one place in its chain, and each chain runs 1..n without a gap.
  expect(rows.reduce((sum, r) => sum + r.n, 0)).toBe(entries);
  for (const row of rows) expect(row).toMatchObject({ n: row.last, logs: row.n });
}, 120_000);
