// Embedded mode: `npm start` with no DATABASE_URL, PGlite in a data directory inside the service's process,
// as a developer or a small shop runs it. Its resident memory idle after a first start on an empty data
// directory, and idle again after 2,000 mixed requests (public reads and cart writes, the merchant's webhook
// list, ingested events delivered to a receiver). A round is a fresh start on a fresh directory: what varies
// is the start itself (PGlite creating and migrating its database), so that is what the rounds repeat. The
// rounds run side by side, each its own process, data directory and receiver: what they measure is each
// process's own memory, which another process's work does not move (CPU would be, and no row here is CPU).
// One after the other they took 256 s of a 963-s run; side by side on two cores, 184 s. For the same reason
// the whole measure runs beside the crash measure (Measure.beside). Three first
// starts side by side, each taking PGlite's WebAssembly memory to about 1.1 GB, did not all get ready within
// 120 s at load average 10: the measure wants the quiet host the bench asks for anyway.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { LoadResult } from '../drivers/load.ts';
import { Api } from '../lib/api.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { keyPair } from '../lib/keys.ts';
import { range } from '../lib/rounds.ts';
import { startService } from '../lib/service.ts';
import { sleep } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, waitFor } from '../lib/webhooks.ts';
import { READ_PATH } from './public-read.ts';

const IDLE = { of: 'value', op: '<=', limit: 250 } as const;
/** What "idle" waits for: the loops' first rounds, and the garbage of start-up collected. */
const SETTLE_MS = 5000;
/**
 * Requests of each kind a round. Three rounds side by side with 1,000 each took 161 s of a 717-s run
 * (lists 32 s, events 41 s a round). What the rows judge is the memory left idle after every path has run,
 * which 500 of each reach.
 */
const EACH = 500;
const REQUESTS = (4 * EACH).toLocaleString('en');
const CONNECTIONS = 10;

const ROWS = {
  start: {
    name: 'embedded idle RSS after start',
    unit: 'MB',
    about: `a first start on an empty data directory, ${SETTLE_MS / 1000} s after ready`,
    target: IDLE,
  },
  after: {
    name: `embedded idle RSS after ${REQUESTS} requests`,
    unit: 'MB',
    about: `then ${EACH} each of public read, cart write, webhook list, event ingestion (delivered), ${CONNECTIONS} connections, and ${SETTLE_MS / 1000} s idle`,
    target: IDLE,
  },
  peak: {
    name: 'embedded peak RSS',
    unit: 'MB',
    about: 'the same process over the round: start-up (PGlite making its database) and the requests',
  },
} as const satisfies Record<string, RowSpec>;

async function round(b: Bench) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-embedded-'));
  const svc = await startService(undefined, { env: { SVC_DATA_DIR: dir } });
  try {
    await sleep(SETTLE_MS);
    const atStart = svc.rssMb();
    const api = new Api(svc.url);
    const eb: Bench = {
      ...b,
      service: svc,
      api,
      merchant: await api.signup('Bench embedded'),
      serviceCpu: () => processCpuMs(svc.pid),
      postgresCpu: () => 0,
    };
    const keys = await keyPair(eb);
    if (!keys) return undefined;
    const rx = await receiver(b);
    await createWebhook(api, eb.merchant, `${rx.url}/embedded`, 'order.created');
    const cannon = (path: string, headers: Record<string, string>, method = 'GET') =>
      b.load.call<LoadResult>('cannon', {
        url: svc.url + path,
        method,
        headers,
        connections: CONNECTIONS,
        amount: EACH,
        duration: 60,
      });
    const t0 = performance.now();
    const runs = [
      await cannon(READ_PATH, { authorization: `Bearer ${keys.publishable}` }),
      await cannon(
        `/api/public/v1/stores/${eb.merchant.storeId}/cart`,
        { authorization: `Bearer ${keys.secret}`, 'x-svc-mode': 'test' },
        'POST',
      ),
      await cannon('/api/v1/merchant/webhooks', { authorization: `Bearer ${eb.merchant.token}` }),
    ];
    const prefix = `em${randomBytes(3).toString('hex')}_`;
    const sent = await b.load.call<{ errors: number }>('burst', {
      ...eventsCall(eb, eb.merchant, 'order.created', prefix),
      count: EACH,
      concurrency: CONNECTIONS,
    });
    const receipts = async () =>
      Object.keys(await rx.child.call<Record<string, number>>('receipts', `evt_${prefix}`)).length;
    const got = await waitFor(receipts, EACH, 60_000, 250);
    const [reads, writes, lists] = runs.map((r) => r.total / r.rps);
    const events = (performance.now() - t0) / 1000 - reads! - writes! - lists!;
    b.log(
      `embedded round: public reads ${reads!.toFixed(1)} s, cart writes ${writes!.toFixed(1)} s, ` +
        `webhook lists ${lists!.toFixed(1)} s, events ingested and delivered ${events.toFixed(1)} s`,
    );
    await sleep(SETTLE_MS);
    return {
      atStart,
      after: svc.rssMb(),
      peak: svc.peakRssMb(),
      errors: runs.reduce((n, r) => n + r.errors, sent.errors),
      delivered: got.last,
    };
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const embedded: Measure = {
  name: 'embedded',
  about: `the service on PGlite in its own process: idle memory after a first start and after ${REQUESTS} requests`,
  rows: Object.values(ROWS),
  beside: true,
  async run(b) {
    const rs = await Promise.all(Array.from({ length: b.rounds }, () => round(b)));
    const done = rs.filter((r) => r !== undefined);
    if (done.length < rs.length)
      return Object.values(ROWS).map((s) => missing(s, 'feature missing (api keys)'));
    b.log(
      `embedded: RSS ${range(done.map((r) => r.atStart))} MB idle at start, ${range(done.map((r) => r.after))} MB after, ` +
        `peak ${range(done.map((r) => r.peak))} MB`,
    );
    const errors = done.reduce((n, r) => n + r.errors, 0);
    return [
      sampled(
        ROWS.start,
        done.map((r) => r.atStart),
      ),
      sampled(
        ROWS.after,
        done.map((r) => r.after),
        [],
        `${done.map((r) => r.delivered).join(', ')} of ${EACH} events delivered${errors ? `; ${errors} errors` : ''}`,
      ),
      sampled(
        ROWS.peak,
        done.map((r) => r.peak),
      ),
    ];
  },
};
