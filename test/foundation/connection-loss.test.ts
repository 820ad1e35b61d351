// A database that goes away answers 503 service_unavailable with Retry-After (the OAuth token endpoint:
// temporarily_unavailable), never 500, and never kills the process: the connections are cut under the
// service by a TCP proxy, idle and busy ones alike, and everything comes back once the proxy lets
// connections through again; over a Unix socket, the server is stopped and started again. PostgreSQL only
// (PGlite runs in the process, there is no connection to lose); the classification of errors runs on both.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { isConnectionLoss } from '../../src/db/connection-loss.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import { createService, type Service } from '../../src/server.ts';
import { DB_KIND, freshDatabase, MASTER_KEY } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { startCluster, type Cluster } from '../support/postgres.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import { createApp, type TestApp } from '../oauth/helpers.ts';
import { eventually } from '../support/eventually.ts';

describe('what counts as a lost database', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: 'ECONNRESET' }, true],
    [{ code: 'EPIPE' }, true],
    // connect(2) on a Unix socket: no socket file (the server stopped), its backlog full
    [{ code: 'ENOENT', syscall: 'connect', address: '/var/run/postgresql/.s.PGSQL.5432' }, true],
    [{ code: 'EAGAIN', syscall: 'connect', address: '/var/run/postgresql/.s.PGSQL.5432' }, true],
    [
      { code: '57P01', severity: 'FATAL', message: 'terminating connection due to administrator command' },
      true,
    ],
    [{ code: '57P02' }, true],
    [{ code: '57P03', message: 'the database system is starting up' }, true],
    [{ code: '08006' }, true],
    [{ code: '08001' }, true],
    [new Error('Connection terminated unexpectedly'), true],
    [new Error('Connection terminated due to connection timeout'), true],
    [new Error('timeout exceeded when trying to connect'), true],
    [new Error('Client has encountered a connection error and is not queryable'), true],
    [Object.assign(new Error('wrapped'), { cause: { code: 'ECONNRESET' } }), true],
    [{ code: '23505', severity: 'ERROR', message: 'duplicate key value' }, false],
    [{ code: '22021', severity: 'ERROR', message: 'invalid byte sequence' }, false],
    [new Error('driver has already been destroyed'), false],
    [new TypeError('x is undefined'), false],
    // the same codes from the file system are not the database's
    [{ code: 'ENOENT', syscall: 'open', path: '/srv/svc/missing' }, false],
    [{ code: 'EAGAIN', syscall: 'read' }, false],
    [undefined, false],
  ])('%o -> %s', (err, lost) => expect(isConnectionLoss(err)).toBe(lost));
});

/** The merchant, public and token interfaces while the database is unreachable: 503 with Retry-After. */
async function expectUnavailable(app: FastifyInstance, m: TestMerchant, key: TestKey, client: TestApp) {
  const merchant = await app.inject({ url: '/api/v1/merchant/me', headers: m.auth });
  expect(merchant.statusCode).toBe(503);
  expect(merchant.headers['retry-after']).toBe('5');
  expect(merchant.json().error).toEqual({
    code: 'service_unavailable',
    message: expect.stringMatching(/database/),
    request_id: merchant.headers['x-request-id'],
  });

  const pub = await app.inject({
    url: '/api/public/v1/stores',
    headers: { authorization: `Bearer ${key.secret_key}` },
  });
  expect(pub.statusCode).toBe(503);
  expect(pub.json().error.code).toBe('service_unavailable');
  expect(pub.headers['retry-after']).toBe('5');

  const token = await app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: `svc_rt_${randomBytes(24).toString('base64url')}`,
      client_id: client.client_id,
      client_secret: client.client_secret,
    }).toString(),
  });
  expect(token.statusCode).toBe(503);
  expect(token.headers['retry-after']).toBe('5');
  expect(token.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
}

describe.skipIf(DB_KIND !== 'pg')('behind a proxy that is cut', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: TcpProxy;
  let svc: Service;
  let m: TestMerchant;
  let key: TestKey;
  let client: TestApp;
  beforeAll(async () => {
    db = await freshDatabase();
    const target = new URL(db.url!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    const url = proxy.through(db.url!);
    const config = loadConfig({
      DATABASE_URL: url,
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_LOG_LEVEL: 'silent',
      SVC_RATE_LIMIT: 'off',
      SVC_WORKERS: 'on',
      SVC_INTERNAL_TOKEN: 'internal',
    });
    svc = await createService(config, await openDatabase({ databaseUrl: url, migrated: true }));
    await svc.app.ready();
    m = await signupMerchant(svc.app);
    key = await createKey(svc.app, m);
    client = await createApp(svc.app, m);
  }, 180_000);
  afterAll(async () => {
    proxy?.restore();
    await svc?.close().catch(() => {});
    await proxy?.close();
    await db?.drop();
  });

  const me = () => svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth });

  it('answers 503 with Retry-After while the database is unreachable, then recovers', async () => {
    expect((await me()).statusCode).toBe(200);
    expect((await svc.app.inject({ url: '/readyz' })).statusCode).toBe(200);

    // requests in flight when the connections drop, on every connection the pool holds
    const inFlight = Array.from({ length: 20 }, () => me());
    await eventually(async () => (svc.database.poolStats?.().inUse ?? 0) > 0, {
      intervalMs: 1,
      what: 'queries in flight on the pool',
    });
    proxy.cut();
    for (const res of await Promise.all(inFlight)) expect([200, 503]).toContain(res.statusCode);

    await expectUnavailable(svc.app, m, key, client);

    const ingest = await svc.app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: { authorization: 'Bearer internal' },
      payload: {
        merchant_id: m.merchantId,
        mode: 'test',
        type: 'order.created',
        data: sampleData('order.created'),
      },
    });
    expect(ingest.statusCode).toBe(503);

    const ready = await svc.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ data: { status: 'unavailable' } });
    expect((await svc.app.inject({ url: '/healthz' })).statusCode).toBe(200);

    proxy.restore();
    const t0 = Date.now();
    await eventually(async () => (await me()).statusCode === 200, { what: 'the pool to reconnect' });
    // the pool reconnects on the next request: no waiting for a back-off
    expect(Date.now() - t0).toBeLessThan(2000);
    // /readyz waits for the LISTEN connection too, which reconnects with back-off
    await expect
      .poll(async () => (await svc.app.inject({ url: '/readyz' })).statusCode, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe(200);
  });
});

// Debian's default: DATABASE_URL names the socket directory (`host=/var/run/postgresql`). A stopped server
// has removed its socket file, and connect(2) fails with ENOENT, which once answered 500 to every call.
describe.skipIf(DB_KIND !== 'pg')('over a Unix socket, the server stopped', () => {
  let cluster: Cluster;
  let svc: Service;
  let m: TestMerchant;
  let key: TestKey;
  let client: TestApp;
  beforeAll(async () => {
    cluster = await startCluster();
    const url = cluster.socketUrl('postgres');
    const config = loadConfig({
      DATABASE_URL: url,
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_LOG_LEVEL: 'silent',
      SVC_RATE_LIMIT: 'off',
    });
    svc = await createService(config, await openDatabase({ databaseUrl: url }));
    await svc.app.ready();
    m = await signupMerchant(svc.app);
    key = await createKey(svc.app, m);
    client = await createApp(svc.app, m);
  }, 180_000);
  afterAll(async () => {
    await svc?.close().catch(() => {});
    cluster?.stop();
  });

  it('answers 503 with Retry-After, then recovers once the server is back', async () => {
    expect((await svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth })).statusCode).toBe(200);
    await cluster.down();
    try {
      await expectUnavailable(svc.app, m, key, client);
    } finally {
      await cluster.up();
    }
    await eventually(
      async () => (await svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth })).statusCode === 200,
      { what: 'the pool to reconnect over the socket' },
    );
  });
});
