// Leases against a stalled process. A claimed delivery is started only while its lease still covers a whole
// attempt: one that waited too long gives its lease back unsent (another worker may be claiming it). A worker
// that claims again a delivery it still holds (its lease ran out under it) starts nothing more of it. After a
// stall past the leases, every event is delivered and no delivery is ever sent twice at once.
// The stall is the service's clock moved past the leases in one step while the worker's first sends are held
// at the receiver: to the worker, as after an event loop that stood still that long, the time passed with
// nothing done in it. No real time is waited, and the test process is never held (a busy wait of 6.5 s did it
// before: docs/decisions/0056-claimed-delivery-starts-only-while-lease-covers.md).
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { leaseMs, PER_WEBHOOK } from '../../src/modules/delivery/worker.ts';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { captureLogs } from '../support/logs.ts';
import { INTERNAL_TOKEN, createWebhook, emit } from './helpers.ts';

const { stream, lines } = captureLogs();

const clock = new TestClock();
// The receiver answers nothing until the test lets it: the sends under way end after the stall, not before.
let answer!: () => void;
const answers = new Promise<void>((resolve) => (answer = resolve));

let svc: TestService;
let rx: Receiver;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    clock,
    logStream: stream,
    env: {
      SVC_LOG_LEVEL: 'warn',
      SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
      // In real time the held sends never time out; on the service's clock a lease is 122 s, passed in a step.
      SVC_WEBHOOK_TIMEOUT_MS: '60000',
      // a retry (none is expected) is due at once on a clock that stands still
      SVC_WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0',
    },
  });
  rx = await startReceiver(() => ({ status: 200, after: answers }));
  m = await signupMerchant(svc.app);
});
afterAll(async () => {
  answer();
  await svc?.close();
  await rx?.close();
});

/** Pending deliveries under a lease that has not run out on the service's clock. */
async function leased(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from deliveries
    where status = 'pending' and locked_until > ${new Date(clock.now())}::timestamptz
  `.execute(svc.ctx.db);
  return rows[0]!.n;
}

it('gives back the leases of deliveries it could not start in time, and still delivers each', async () => {
  await createWebhook(svc, m, `${rx.url}/lease`, ['inventory.low_stock']);
  // More than one webhook may have in flight: the rest waits, claimed, in the worker's queue. Fewer than it may
  // hold (twice that), so that claims still take its rows once their leases have run out.
  const queued = PER_WEBHOOK / 2;
  const events = await Promise.all(
    Array.from({ length: PER_WEBHOOK + queued }, () => emit(svc, m, 'inventory.low_stock')),
  );
  const ids = events.map((e) => e.id);
  await rx.waitFor(PER_WEBHOOK);
  await eventually(async () => (await leased()) === ids.length, {
    what: "every delivery claimed, some of them waiting in the worker's queue",
  });

  // The stall, past the leases themselves: every delivery is claimable again, and this very worker, which still
  // holds them all, claims them again within a few polls. It starts none of them: the attempts under way stay
  // the only ones, and the queued deliveries wait for them.
  clock.advance(leaseMs(svc.ctx) + 500);
  expect(await leased()).toBe(0);
  await eventually(async () => (await leased()) === ids.length, {
    timeoutMs: 20_000,
    what: 'every delivery claimed again by the worker that holds it',
  });
  expect(rx.received).toHaveLength(PER_WEBHOOK);

  // The held sends are answered; each queued delivery then finds its start deadline passed, gives its lease
  // back unsent, and is claimed and sent afresh.
  answer();
  const seen = () => new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
  await eventually(async () => ids.every((id) => seen().has(id)), {
    timeoutMs: 20_000,
    what: () => `every event delivered (${ids.filter((id) => seen().has(id)).length} of ${ids.length})`,
  });
  // One line for the leases given back together, with their number.
  const givenBack = lines.filter(
    (l) => l.msg === 'claimed deliveries not started in time: leases given back',
  );
  expect(givenBack.reduce((n, l) => n + Number(l.deliveries), 0)).toBe(queued);
  expect(rx.overlaps).toEqual([]);
}, 60_000);
