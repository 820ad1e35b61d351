// A helper process of the request-logs measure: the request log's recorder (its batcher and writer, as the
// service makes them) on the bench database, fed synthetic entries by `offer`, as the onResponse hook feeds
// it. `flood` offers as fast as the buffer takes for some seconds: what gets written per second is the rate
// the recorder sustains. `pace` offers at a fixed rate: what it drops there, counted as the service counts it.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import type { Context } from '../../src/context.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/http/logging.ts';
import { Metrics } from '../../src/lib/metrics.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createRequests, type RequestEntry } from '../../src/modules/requests/index.ts';
import { serveCalls } from '../lib/child.ts';

const config = loadConfig({ ...process.env, SVC_LOG_LEVEL: 'warn' }, { workers: false });
const database = await openDatabase({ databaseUrl: config.databaseUrl, migrated: true });
const metrics = new Metrics({ defaultMetrics: false });
const ctx: Context = {
  config,
  db: database.db,
  bus: database.bus,
  log: createLogger('warn'),
  metrics,
  clock: systemClock,
};
const requests = createRequests(ctx);
const merchantId = `mer_bench${randomBytes(8).toString('hex')}`;

/** The service's own count of entries by outcome (`svc_request_log_entries_total`). */
async function counted(outcome: 'written' | 'buffer_full' | 'write_failed'): Promise<number> {
  const metric = metrics.registry.getSingleMetric('svc_request_log_entries_total')!;
  return (await metric.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/** Entries as public calls make them, one in ten an error with its body; made cheaply, ids distinct. */
const base = {
  merchantId,
  mode: 'test' as const,
  method: 'POST',
  path: '/api/public/v1/stores/store_01jb3m5x0000000000000000/cart',
  route: '/api/public/v1/stores/{storeID}/cart',
  durationMs: 1.25,
  credentialType: 'secret_key' as const,
  credentialId: 'key_01jb3m5x00000000000000000',
  credentialLast4: 'a1B2',
  ip: '127.0.0.1',
  userAgent: 'bench-recorder/1.0',
  idempotencyKey: null,
  replayed: false,
};
const prefix = `req_${randomBytes(8).toString('hex')}_`;
const ERROR = '{"error":{"code":"not_found","message":"No such store.","request_id":"req_x"}}';

function entry(i: number): RequestEntry {
  const failed = i % 10 === 0;
  return {
    ...base,
    createdAt: Date.now(),
    requestId: prefix + i,
    status: failed ? 404 : 201,
    error: failed ? ERROR : null,
  };
}

/**
 * Offers entries for `seconds`: as fast as the buffer takes them (`rate` undefined), or at `rate` a second
 * whatever the writer does, counting what the buffer refuses as the service's hook counts it.
 */
async function run(seconds: number, rate: number | undefined) {
  const before = { written: await counted('written'), dropped: await counted('buffer_full') };
  const start = Date.now();
  const end = start + seconds * 1000;
  let offered = 0;
  while (Date.now() < end) {
    if (rate === undefined) {
      while (requests.batch.offer(entry(offered))) offered++;
    } else {
      // Catch up with the clock: a tick the writer's own work delayed offers what fell due meanwhile.
      const due = Math.floor((rate * (Date.now() - start)) / 1000);
      for (; offered < due; offered++) {
        if (!requests.batch.offer(entry(offered))) metrics.requestLog.bufferFull.inc();
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const written = (await counted('written')) - before.written;
  await requests.batch.flush();
  const after = { written: await counted('written'), dropped: await counted('buffer_full') };
  return {
    offered,
    writtenInTime: written,
    written: after.written - before.written,
    dropped: after.dropped - before.dropped,
    failed: await counted('write_failed'),
    seconds,
  };
}

serveCalls(
  {},
  {
    flood: (payload) => run((payload as { seconds: number }).seconds, undefined),
    pace: (payload) => {
      const { seconds, rate } = payload as { seconds: number; rate: number };
      return run(seconds, rate);
    },
  },
);
