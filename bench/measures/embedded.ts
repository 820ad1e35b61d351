// Embedded mode: `npm start` with no DATABASE_URL, PGlite in a data directory inside the service's process,
// as a developer or a small shop runs it. Its resident memory idle after start and idle again after 10,000
// mixed requests (public reads and cart writes, the merchant's webhook list, ingested events delivered to a
// receiver), and the public read measure run against it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { LoadResult } from '../drivers/load.ts';
import { Api } from '../lib/api.ts';
import { missing, row, type Measure, type Row } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { keyPair } from '../lib/keys.ts';
import { startService } from '../lib/service.ts';
import { sleep } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, waitFor } from '../lib/webhooks.ts';
import { publicRead } from './public-read.ts';

const IDLE = { of: 'value', op: '<=', limit: 250 } as const;
/** What "idle" waits for: the loops' first rounds, and the garbage of start-up collected. */
const SETTLE_MS = 5000;
const EACH = 2500;
const CONNECTIONS = 10;

export const embedded: Measure = {
  name: 'embedded',
  async run(b) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-embedded-'));
    const svc = await startService(undefined, { env: { SVC_DATA_DIR: dir } });
    try {
      await sleep(SETTLE_MS);
      const atStart = svc.rssMb();
      const api = new Api(svc.url);
      const eb = {
        ...b,
        service: svc,
        api,
        merchant: await api.signup('Bench embedded'),
        serviceCpu: () => processCpuMs(svc.pid),
        postgresCpu: () => 0,
      };
      const keys = await keyPair(eb);
      if (!keys) return [missing('embedded idle RSS after start', 'MB', 'feature missing (api keys)', IDLE)];
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
      const runs = [
        await cannon('/api/public/v1/payments/supported-countries', {
          authorization: `Bearer ${keys.publishable}`,
        }),
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
      const errors = runs.reduce((n, r) => n + r.errors, sent.errors);
      await sleep(SETTLE_MS);
      const after = svc.rssMb();
      const reads: Row[] = (await publicRead.run(eb)).map((r) => ({
        ...r,
        measure: `embedded: ${r.measure}`,
      }));
      const peak = svc.peakRssMb();
      b.log(
        `embedded: RSS ${atStart.toFixed(0)} MB idle at start, ${after.toFixed(0)} MB idle after, peak ${peak.toFixed(0)}`,
      );
      const mixed = `${EACH} each of public read, cart write, webhook list, event ingestion (${got.last} delivered), ${CONNECTIONS} connections`;
      return [
        row('embedded idle RSS after start', 'MB', atStart, null, IDLE, `${SETTLE_MS / 1000} s after ready`),
        row(
          'embedded idle RSS after 10,000 requests',
          'MB',
          after,
          null,
          IDLE,
          `${mixed}${errors ? `; ${errors} errors` : ''}`,
        ),
        row(
          'embedded peak RSS',
          'MB',
          peak,
          null,
          undefined,
          'service process with PGlite, mixed requests and public read',
        ),
        ...reads,
      ];
    } finally {
      await svc.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
