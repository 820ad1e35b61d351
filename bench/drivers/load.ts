// The load generator, in its own process: autocannon for fixed requests, and small undici loops for what
// autocannon cannot express (refresh chains where each request carries the previous answer's token, one-use
// authorization codes, event ingestion at a steady rate). Every loop is bounded in time and in count.
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { serveCalls } from '../lib/child.ts';
import { nowMs, sleep, summarise } from '../lib/stats.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import type { EventsCall } from '../lib/webhooks.ts';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  /** CPU ms per request of the measured side, when metered. */
  cpuPerOp?: number;
  /** The PostgreSQL part of cpuPerOp. */
  dbCpuPerOp?: number;
}

interface CannonOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
  /** Bearer tokens used in turn, one per request: many distinct credentials in use at once. */
  tokens?: string[];
  /** The index in `tokens` of the first request's token: a run can go on where the last one stopped. */
  from?: number;
  /** Stop after this many requests instead (still bounded by `duration`). */
  amount?: number;
  /** A DPoP-bound access token: each request carries it with a fresh proof (RFC 9449) signed here. */
  dpop?: DpopLoad;
}

interface DpopLoad {
  accessToken: string;
  /** The proof key's private half, an ES256 JWK (kty, crv, x, y, d). */
  privateJwk: Record<string, string>;
  /** The URL the proofs name: the service's public URL and the path, no query. */
  htu: string;
}

/** Each request carries the next of `tokens` (autocannon's per-request hook), from the `from`th. */
function rotating(tokens: string[] | undefined, from = 0): autocannon.Request[] | undefined {
  if (!tokens?.length) return undefined;
  let next = from;
  return [
    {
      setupRequest: (req: autocannon.Request) => {
        req.headers = { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` };
        return req;
      },
    },
  ];
}

/**
 * Each request carries `Authorization: DPoP` and a proof of its own (new jti, iat now, ath of the token): the
 * signing is the load generator's CPU, never the measured side's, which pays the verification and the jti.
 */
function proving(d: DpopLoad | undefined, method: string): autocannon.Request[] | undefined {
  if (!d) return undefined;
  const key = createPrivateKey({ key: d.privateJwk, format: 'jwk' });
  const { kty, crv, x, y } = d.privateJwk;
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } });
  const ath = createHash('sha256').update(d.accessToken).digest('base64url');
  return [
    {
      setupRequest: (req: autocannon.Request) => {
        const iat = Math.floor(Date.now() / 1000);
        const input = `${header}.${b64({ jti: randomUUID(), htm: method, htu: d.htu, iat, ath })}`;
        const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
        const dpop = `${input}.${signature.toString('base64url')}`;
        req.headers = { ...req.headers, authorization: `DPoP ${d.accessToken}`, dpop };
        return req;
      },
    },
  ];
}

async function cannon(o: CannonOptions): Promise<LoadResult> {
  const r = await autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body,
    connections: o.connections,
    requests: rotating(o.tokens, o.from) ?? proving(o.dpop, o.method ?? 'GET'),
    // Bounded in time, or in count: autocannon ignores `duration` when `amount` is set.
    ...(o.amount ? { amount: o.amount } : { duration: o.duration }),
  });
  return {
    rps: r.requests.total / (r.duration || o.duration),
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

function poolFor(url: string, connections: number): Pool {
  return new Pool(new URL(url).origin, { connections, pipelining: 1 });
}

interface TokenCall {
  url: string;
  /** Form fields common to every request (client authentication, grant type). */
  fields: Record<string, string>;
}

async function postForm(pool: Pool, path: string, fields: Record<string, string>) {
  const res = await pool.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

/** N chains run concurrently; each is sequential, every request using the refresh token the last one returned. */
async function chains(o: TokenCall & { tokens: string[]; duration: number; maxRequests: number }) {
  const pool = poolFor(o.url, o.tokens.length);
  const path = new URL(o.url).pathname;
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const started = nowMs();
  const deadline = started + o.duration * 1000;
  await Promise.all(
    o.tokens.map(async (first) => {
      let token = first;
      while (nowMs() < deadline && sent < o.maxRequests && errors < 100) {
        sent++;
        const t0 = nowMs();
        const res = await postForm(pool, path, { ...o.fields, refresh_token: token });
        if (res.status !== 200) {
          errors++;
          if (errors === 1) process.stderr.write(`refresh failed: ${res.status} ${res.text.slice(0, 200)}\n`);
          return;
        }
        latencies.push(nowMs() - t0);
        token = (JSON.parse(res.text) as { refresh_token: string }).refresh_token;
      }
    }),
  );
  const elapsed = (nowMs() - started) / 1000;
  await pool.close();
  const s = summarise(latencies);
  return { rps: s.count / elapsed, p50: s.p50, p99: s.p99, total: s.count, errors } satisfies LoadResult;
}

/** One-use codes, each exchanged once, `concurrency` at a time. */
async function exchange(o: TokenCall & { codes: { code: string; verifier: string }[]; concurrency: number }) {
  const pool = poolFor(o.url, o.concurrency);
  const path = new URL(o.url).pathname;
  const latencies: number[] = [];
  let errors = 0;
  let nextIndex = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      for (let i = nextIndex++; i < o.codes.length; i = nextIndex++) {
        const { code, verifier } = o.codes[i]!;
        const t0 = nowMs();
        const res = await postForm(pool, path, { ...o.fields, code, code_verifier: verifier });
        if (res.status !== 200) {
          if (errors++ === 0)
            process.stderr.write(`exchange failed: ${res.status} ${res.text.slice(0, 200)}\n`);
          continue;
        }
        latencies.push(nowMs() - t0);
      }
    }),
  );
  const elapsed = (nowMs() - started) / 1000;
  await pool.close();
  const s = summarise(latencies);
  return { rps: s.count / elapsed, p50: s.p50, p99: s.p99, total: s.count, errors } satisfies LoadResult;
}

function eventBody(o: EventsCall, n: number): string {
  return JSON.stringify({
    id: `evt_${o.prefix}${n}`,
    merchant_id: o.merchantIds ? o.merchantIds[n % o.merchantIds.length] : o.merchantId,
    mode: 'test',
    type: o.type,
    // The example of the type (its schema is checked at ingestion), about 1.5 KiB for an order; with `keys`,
    // its object is one of that many (the ordering key of per_object delivery).
    data: { ...sampleData(o.type), id: `ord_${o.keys ? n % o.keys : n}` },
  });
}

async function ingest(pool: Pool, o: EventsCall, n: number): Promise<number> {
  const res = await pool.request({
    path: new URL(o.url).pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` },
    body: eventBody(o, n),
  });
  await res.body.dump();
  return res.statusCode;
}

/** As fast as the route takes them: `count` events, `concurrency` in flight. */
async function burst(o: EventsCall & { count: number; concurrency: number }) {
  const pool = poolFor(o.url, o.concurrency);
  let nextIndex = 0;
  let errors = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      for (let n = nextIndex++; n < o.count; n = nextIndex++) {
        if ((await ingest(pool, o, n)) !== 202) errors++;
      }
    }),
  );
  const ended = nowMs();
  await pool.close();
  return { started, ended, errors };
}

/**
 * Open loop at a fixed rate: an event every 1/rate s whatever the answers, send times kept per event, and the
 * events not accepted (no 202: refused, or the service was down).
 */
async function steady(o: EventsCall & { rate: number; duration: number }) {
  const pool = poolFor(o.url, 64);
  const total = Math.round(o.rate * o.duration);
  const sentAt: number[] = new Array<number>(total);
  // Each ingestion's answer time, from its send (a late send is timed from when it was due).
  const answered: number[] = new Array<number>(total);
  const inflight: Promise<void>[] = [];
  const failed: number[] = [];
  let errors = 0;
  const started = nowMs();
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / o.rate;
    const wait = due - nowMs();
    if (wait > 1) await sleep(wait);
    sentAt[n] = nowMs();
    const fail = () => {
      errors++;
      failed.push(n);
    };
    inflight.push(
      ingest(pool, o, n).then((status) => {
        answered[n] = nowMs() - Math.min(due, sentAt[n]!);
        if (status !== 202) fail();
      }, fail),
    );
  }
  await Promise.all(inflight);
  await pool.close();
  const answers = summarise(answered.filter((t) => t !== undefined));
  return {
    started,
    sentAt,
    errors,
    failed,
    achievedRate: total / ((nowMs() - started) / 1000),
    answerP50: answers.p50,
    answerP99: answers.p99,
  };
}

serveCalls({}, { cannon, chains, exchange, burst, steady });
