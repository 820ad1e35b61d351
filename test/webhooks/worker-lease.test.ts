// Leases against a stalled process. A claimed delivery is started only while its lease still covers a whole
// attempt: one that waited too long gives its lease back unsent (another worker may be claiming it). After an
// event loop stalled past the leases, every event is delivered and no delivery is ever sent twice at once.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PER_WEBHOOK } from '../../src/modules/webhooks/delivery/worker.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { captureLogs } from '../support/logs.ts';
import { INTERNAL_TOKEN, createWebhook, emit } from './helpers.ts';

const { stream, lines } = captureLogs();

let svc: TestService;
let rx: Receiver;
let m: TestMerchant;
beforeAll(async () => {
  // A 2 s timeout: a lease of 6 s, and a claimed delivery may start until 3 s after its claim.
  svc = await startTestService({
    workers: true,
    logStream: stream,
    env: {
      SVC_LOG_LEVEL: 'warn',
      SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
      SVC_WEBHOOK_TIMEOUT_MS: '2000',
      SVC_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2,0.2,0.2',
    },
  });
  rx = await startReceiver(() => ({ status: 200, delayMs: 1500 }));
  m = await signupMerchant(svc.app);
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

it('gives back the leases of deliveries it could not start in time, and still delivers each', async () => {
  await createWebhook(svc, m, `${rx.url}/lease`, ['inventory.low_stock']);
  // Twice what one webhook may have in flight: the second half waits, claimed, in the worker's queue.
  const events = await Promise.all(
    Array.from({ length: 2 * PER_WEBHOOK }, () => emit(svc, m, 'inventory.low_stock')),
  );
  const ids = events.map((e) => e.id);
  await eventually(
    async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from deliveries where status = 'pending' and locked_by is not null
      `.execute(svc.ctx.db);
      return rows[0]!.n > PER_WEBHOOK;
    },
    { what: "claimed deliveries waiting in the worker's queue" },
  );
  // The event loop stalls past the leases themselves: their deliveries are claimable again, by this very worker.
  const until = Date.now() + 6_500;
  while (Date.now() < until) {
    // busy: nothing else runs in this process meanwhile, the service's worker included
  }
  const seen = () => new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
  await eventually(async () => ids.every((id) => seen().has(id)), {
    timeoutMs: 20_000,
    what: () => `every event delivered (${ids.filter((id) => seen().has(id)).length} of ${ids.length})`,
  });
  expect(lines.some((l) => l.msg === 'claimed delivery not started in time: lease given back')).toBe(true);
  expect(rx.overlaps).toEqual([]);
});
