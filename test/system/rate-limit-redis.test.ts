// Public API rate limits shared through a real redis-server by two operating-system processes: three times
// the bucket sent across both gets no more 200s than the bucket plus what refilled meanwhile, every answer
// carries the RateLimit fields, and with Redis stopped the processes keep serving under their own limits,
// which they log and count. A process shares the bucket from its first request: it waits for Redis at start
// (or says it could not reach it), and a command that timed out does not leave it on its own bucket for good.
// (pg project only: see vitest.config.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestService, type TestService } from '../support/service.ts';
import { call, freePort, startProcess, stopAll } from '../support/processes.ts';
import { startRedis, type RedisServer } from '../support/redis.ts';
import { captureLogs } from '../support/logs.ts';
import { eventually } from '../support/eventually.ts';
import { signupMerchant } from '../support/merchants.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { createKey } from '../api-keys/keys.ts';

const COUNTRIES = '/api/public/v1/payments/supported-countries';
const RATE = 1; // per second
const BURST = 30; // seconds of the rate: a bucket of 30

let database: Awaited<ReturnType<typeof freshDatabase>>;
let redis: RedisServer;
let urls: [string, string];
let metricsA: string;
let metricsB: string;
let logB = '';
let secret: string;

async function publicCall(base: string) {
  const res = await fetch(base + COUNTRIES, { headers: { authorization: `Bearer ${secret}` } });
  const body = await res.text();
  return { status: res.status, headers: res.headers, body };
}

beforeAll(async () => {
  database = await freshDatabase();
  redis = await startRedis();
  const env = {
    SVC_RATE_LIMIT: 'on',
    SVC_REDIS_URL: redis.url,
    SVC_RATE_LIMIT_TEST: String(RATE),
    SVC_RATE_LIMIT_BURST: String(BURST),
    SVC_LOG_LEVEL: 'info',
  };
  const [portA, portB] = [await freePort(), await freePort()];
  metricsA = `http://127.0.0.1:${portA}/metrics`;
  metricsB = `http://127.0.0.1:${portB}/metrics`;
  const [a, b] = await Promise.all([
    startProcess(database.url!, { ...env, SVC_METRICS_PORT: String(portA) }),
    startProcess(
      database.url!,
      { ...env, SVC_METRICS_PORT: String(portB) },
      { stdout: (text) => (logB += text) },
    ),
  ]);
  urls = [a.url, b.url];
  // Ready means sharing: a process that answered before its Redis connection was up served from a bucket of
  // its own (45 requests passed where the shared bucket held 30).
  for (const metrics of [metricsA, metricsB]) {
    expect(await (await fetch(metrics)).text()).toMatch(/^svc_rate_limit_shared 1$/m);
  }
  const signup = await call(a.url, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: { merchant_name: 'Limited', email: `rl-${Date.now()}@example.com`, password: '0123456789ab' },
  });
  expect(signup.status).toBe(201);
  const key = await call<{ secret_key: string }>(a.url, '/api/v1/merchant/api-keys', {
    method: 'POST',
    token: signup.data.token,
    body: {},
  });
  expect(key.status).toBe(201);
  secret = key.data.secret_key;
}, 90_000);

afterAll(async () => {
  await stopAll();
  await redis?.stop();
  await database?.drop();
}, 30_000);

describe('rate limits shared through Redis', () => {
  it('allow the bucket across both processes, not once per process, with the RateLimit fields on every answer', async () => {
    const started = Date.now();
    const answers = [];
    // 3x the bucket, alternating between the processes, ten at a time
    for (let i = 0; i < 3 * BURST; i += 10) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, j) => publicCall(urls[(i + j) % 2]!)))),
      );
    }
    const seconds = (Date.now() - started) / 1000;
    const ok = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 429);
    expect(ok + refused.length).toBe(3 * BURST);
    // Leases are one request at this rate: a process holds at most one unspent, so at least bucket - 2 pass.
    expect(ok).toBeGreaterThanOrEqual(BURST - 2);
    expect(ok).toBeLessThanOrEqual(BURST + Math.ceil(seconds * RATE) + 2);
    for (const a of answers) {
      expect(a.headers.get('ratelimit-policy')).toBe(`"test";q=${RATE * BURST};w=${BURST}`);
      expect(a.headers.get('ratelimit')).toMatch(/^"test";r=\d+;t=\d+$/);
    }
    expect(JSON.parse(refused[0]!.body).error.code).toBe('rate_limited');
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('fall back to per-process limits when Redis stops: requests keep succeeding, logged and counted', async () => {
    await redis.stop();
    // the fallback bucket of this process is full: every request within it succeeds
    const deadline = Date.now() + 10_000;
    let served = 0;
    while (served < 10 && Date.now() < deadline) {
      const res = await publicCall(urls[1]);
      if (res.status === 200) served++;
      else expect(res.status).toBe(429); // refused by the shared bucket before the loss was noticed
    }
    expect(served).toBe(10);
    expect(logB).toContain('Redis unreachable: rate limits fall back to this process alone');
    const metrics = await (await fetch(metricsB)).text();
    expect(metrics).toMatch(/^svc_rate_limit_fallbacks_total 1$/m);
    expect(metrics).toMatch(/^svc_rate_limit_shared 0$/m);
  });
});

describe('a process and its Redis connection', () => {
  const { stream, raw } = captureLogs();
  let redis: RedisServer;
  let proxy: TcpProxy | undefined;
  const services: TestService[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const svc of services) await svc.close();
    await proxy?.close();
    await redis?.stop();
  });

  async function service(redisUrl: string) {
    const svc = await startTestService({
      env: {
        SVC_RATE_LIMIT: 'on',
        SVC_REDIS_URL: redisUrl,
        SVC_RATE_LIMIT_TEST: String(RATE),
        SVC_RATE_LIMIT_BURST: String(BURST),
        SVC_LOG_LEVEL: 'info',
      },
      logStream: stream,
    });
    services.push(svc);
    return svc;
  }
  const metrics = async (svc: TestService) => (await svc.ctx.metrics.scrape()).body;
  const sharing = async (svc: TestService) => /^svc_rate_limit_shared 1$/m.test(await metrics(svc));

  it('shares the bucket from its first request: the start waits for the connection', async () => {
    expect(await sharing(await service(redis.url))).toBe(true);
  });

  it('says so when Redis cannot be reached at start, and shares once it can', async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
    proxy.cut();
    const svc = await service(proxy.through(redis.url));
    expect(await metrics(svc)).toMatch(/^svc_rate_limit_fallbacks_total 1$/m);
    expect(raw.join('\n')).toContain('Redis unreachable: rate limits fall back to this process alone');
    proxy.restore();
    await eventually(() => sharing(svc), { what: 'the limits to be shared once Redis is reachable' });
    expect(raw.join('\n')).toContain('rate limits shared through Redis again');
  });

  it('shares the bucket again after a command that timed out on a connection still up', async () => {
    const svc = await service(redis.url);
    const m = await signupMerchant(svc.app);
    const key = await createKey(svc.app, m);
    const countries = () =>
      svc.app.inject({
        url: '/api/public/v1/payments/supported-countries',
        headers: { authorization: `Bearer ${key.secret_key}` },
      });
    expect((await countries()).statusCode).toBe(200);
    redis.pause();
    try {
      // a lease is one request at the test rate: this one asks Redis, waits 250 ms, and is served locally
      expect((await countries()).statusCode).toBe(200);
      expect(await metrics(svc)).toMatch(/^svc_rate_limit_fallbacks_total 1$/m);
    } finally {
      redis.resume();
    }
    await eventually(() => sharing(svc), { what: 'the limits to be shared again' });
    expect((await countries()).statusCode).toBe(200);
  });
});
