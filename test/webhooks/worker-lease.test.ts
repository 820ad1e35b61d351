// Leases against a stalled process. A claimed delivery is started only while its lease still covers a whole
// attempt: one that waited too long gives its lease back unsent (another worker may be claiming it). And a
// delivery this worker still has under way when its lease runs out, claimed again by the same worker, is not
// attempted a second time meanwhile. After an event loop stalled past the leases, every event is delivered
// and no delivery is ever sent twice at once.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PER_WEBHOOK } from '../../src/modules/webhooks/delivery/worker.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { INTERNAL_TOKEN, createWebhook, emit, sleep } from './helpers.ts';

const lines: { msg: string }[] = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

let svc: TestService;
let rx: Receiver;
let m: TestMerchant;
beforeAll(async () => {
  // A 1 s timeout: a lease of 4 s, and a claimed delivery may start until 2 s after its claim.
  svc = await startTestService({
    workers: true,
    logStream: stream,
    env: {
      SVC_LOG_LEVEL: 'warn',
      SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
      SVC_WEBHOOK_TIMEOUT_MS: '1000',
      SVC_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2,0.2,0.2',
    },
  });
  rx = await startReceiver(() => ({ status: 200, delayMs: 500 }));
  m = await signupMerchant(svc.app);
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

it('gives back the leases of deliveries it could not start in time, and still delivers each', async () => {
  await createWebhook(svc, m, `${rx.url}/lease`, ['inventory.low_stock']);
  // Twice what one webhook may have in flight: the second half waits, claimed, in the worker's queue.
  const ids: string[] = [];
  for (let i = 0; i < 2 * PER_WEBHOOK; i++) ids.push((await emit(svc, m, 'inventory.low_stock')).id);
  await sleep(200);
  // The event loop stalls past the leases themselves: their deliveries are claimable again, by this very worker.
  const until = Date.now() + 4_500;
  while (Date.now() < until) {
    // busy: nothing else runs in this process meanwhile, the service's worker included
  }
  const seen = () => new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
  await eventually(async () => ids.every((id) => seen().has(id)), {
    timeoutMs: 20_000,
    what: () => `every event delivered (${ids.filter((id) => seen().has(id)).length} of ${ids.length})`,
  });
  expect(lines.some((l) => l.msg === 'claimed delivery not started in time: lease given back')).toBe(true);
  expect(rx.maxConcurrentPerId).toBe(1);
});
