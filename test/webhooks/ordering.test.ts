// Per-object ordering (API.md section 11.4), on both databases: with `ordering: per_object`, a delivery is
// not attempted while an earlier-recorded delivery of its key to the same endpoint is pending; other keys flow.
// Retries, a final failure, resend, recover and disabling keep working. Retries fall due as the test moves the
// service's clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { TestClock } from '../support/clock.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver, type Received } from './receiver.ts';
import { base, createWebhook, deliveries, emit, INTERNAL_TOKEN } from './helpers.ts';

const clock = new TestClock();
let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
// An attempt whose body names `fail` in its data fails: `once` the first time its event is seen, `always`
// every time.
const seenOnce = new Set<string>();
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    clock,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '5,5' },
  });
  m = await signupMerchant(svc.app);
  rx = await startReceiver((r) => {
    const { id, data } = JSON.parse(r.body) as { id: string; data: { fail?: string } };
    if (data.fail === 'always') return { status: 500 };
    if (data.fail === 'once' && !seenOnce.has(id)) {
      seenOnce.add(id);
      return { status: 500 };
    }
    return { status: 200 };
  });
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

interface Body {
  id: string;
  sequence: number;
  ordering_key: string | null;
  data: { id: string; n: number };
}
const body = (r: Received) => JSON.parse(r.body) as Body;
const at = (path: string) => () => rx.received.filter((r) => r.path === path).map(body);
/** The `n` of each request to `path` about `key`, in the order they arrived. */
const arrivals = (path: string, key: string) =>
  at(path)()
    .filter((b) => b.ordering_key === key)
    .map((b) => b.data.n);

async function orderedWebhook(path: string, type: string) {
  const hook = await createWebhook(svc, m, `${rx.url}${path}`, [type]);
  const res = await svc.app.inject({
    method: 'PATCH',
    url: `${base}/${hook.id}`,
    headers: m.auth,
    payload: { ordering: 'per_object' },
  });
  expect(res.json<{ data: { ordering: string } }>().data.ordering).toBe('per_object');
  return hook;
}

/** Waits until a pending delivery of the webhook has its failed first attempt recorded. */
const failedOnce = (webhookId: string) =>
  eventually(
    async () =>
      (await deliveries(svc, m, webhookId, '?status=pending')).items.some((d) => d.attempt_count === 1),
    { what: 'a failed first attempt recorded' },
  );

/**
 * Waits until the event's delivery to the webhook has `n` attempts recorded: its next retry is counted from the
 * recording, so the clock moves only after it.
 */
const recorded = (webhookId: string, eventId: string, n: number) =>
  eventually(
    async () =>
      (await deliveries(svc, m, webhookId)).items.some(
        (d) => d.event_id === eventId && d.attempt_count === n,
      ),
    { what: `attempt ${n} of ${eventId} recorded` },
  );

/** Moves the clock past a retry (5 s +-20%) and waits for `check`. */
async function afterRetry<T>(check: () => T | undefined | false, what: string): Promise<T> {
  clock.advance(6_500);
  return eventually(async () => check(), { what });
}

describe('per_object ordering', () => {
  it('holds the later events of a key behind its failing first one, and lets other keys flow', async () => {
    const path = '/held';
    const hook = await orderedWebhook(path, 'order.created');
    await emit(svc, m, 'order.created', { id: 'ord_a', n: 1, fail: 'once' });
    await emit(svc, m, 'order.created', { id: 'ord_a', n: 2 });
    await emit(svc, m, 'order.created', { id: 'ord_b', n: 1 });
    await emit(svc, m, 'order.created', { id: 'ord_a', n: 3 });
    await emit(svc, m, 'order.created', { id: 'ord_b', n: 2 });
    // key b flows at once; key a stops after its first attempt failed
    await eventually(
      async () => arrivals(path, 'ord_b').length === 2 && arrivals(path, 'ord_a').length === 1,
      {
        what: 'both deliveries of ord_b and the failed first of ord_a',
      },
    );
    expect(arrivals(path, 'ord_b')).toEqual([1, 2]);
    await failedOnce(hook.id);
    const parked = await svc.ctx.db
      .selectFrom('deliveries')
      .select(['parked', 'attempt_count'])
      .where('ordering_key', '=', 'ord_a')
      .where('status', '=', 'pending')
      .execute();
    expect(parked).toHaveLength(3);
    expect(parked.filter((p) => p.attempt_count === 0).every((p) => p.parked === 'order')).toBe(true);

    await afterRetry(() => arrivals(path, 'ord_a').length === 4, 'the retry of ord_a, then the two after it');
    expect(arrivals(path, 'ord_a')).toEqual([1, 1, 2, 3]);
    // every body names its key and its sequence, which follows the order of ingestion
    const events = [...new Map(at(path)().map((b) => [b.id, b])).values()];
    expect(new Set(events.map((b) => b.sequence)).size).toBe(5);
    const ofA = events.filter((b) => b.ordering_key === 'ord_a').sort((x, y) => x.data.n - y.data.n);
    expect(ofA.map((b) => b.sequence)).toEqual(ofA.map((b) => b.sequence).sort((x, y) => x - y));
  });

  it('releases the next one when the first fails for good, and a resend waits for its key', async () => {
    const path = '/final';
    const hook = await orderedWebhook(path, 'order.paid');
    const first = await emit(svc, m, 'order.paid', { id: 'ord_c', n: 1, fail: 'always' });
    await emit(svc, m, 'order.paid', { id: 'ord_c', n: 2 });
    await eventually(async () => arrivals(path, 'ord_c').length === 1, {
      what: 'the first attempt of ord_c',
    });
    // a resend of the first event is recorded now: it waits for both deliveries of ord_c pending before it
    const resent = await svc.app.inject({
      method: 'POST',
      url: `/api/v1/merchant/events/${first.id}/resend`,
      headers: m.auth,
      payload: { webhook_id: hook.id },
    });
    expect(resent.statusCode).toBe(202);
    await recorded(hook.id, first.id, 1);
    await afterRetry(() => arrivals(path, 'ord_c').length === 2, 'the second attempt of the first event');
    await recorded(hook.id, first.id, 2);
    // The resend may follow the next event at once (its release claims again): at least these four, in order.
    await afterRetry(
      () => arrivals(path, 'ord_c').length >= 4,
      'the third and last attempt, then the next event and the resend',
    );
    expect(arrivals(path, 'ord_c').slice(0, 4)).toEqual([1, 1, 1, 2]);
    const failed = (await deliveries(svc, m, hook.id, '?status=failed')).items;
    expect(failed.map((d) => d.event_id)).toEqual([first.id]);
    await eventually(async () => arrivals(path, 'ord_c').length >= 5, { what: 'the resend, last' });
    expect(arrivals(path, 'ord_c')).toEqual([1, 1, 1, 2, 1]);
  });

  it('recovers failed deliveries of a key in order, and a disabled endpoint holds nothing back later', async () => {
    const path = '/recover';
    const hook = await orderedWebhook(path, 'order.fulfilled');
    const since = new Date(clock.now() - 1000).toISOString();
    await emit(svc, m, 'order.fulfilled', { id: 'ord_d', n: 1, fail: 'once' });
    await emit(svc, m, 'order.fulfilled', { id: 'ord_d', n: 2, fail: 'once' });
    await failedOnce(hook.id);
    // Disabling cancels both (the second never started); enabling again, a new event of the key is not held.
    for (const action of ['disable', 'enable'])
      await svc.app.inject({ method: 'POST', url: `${base}/${hook.id}/${action}`, headers: m.auth });
    expect((await deliveries(svc, m, hook.id, '?status=cancelled')).count).toBe(2);
    await emit(svc, m, 'order.fulfilled', { id: 'ord_d', n: 3 });
    await eventually(async () => arrivals(path, 'ord_d').length === 2, { what: 'the new event of ord_d' });
    expect(arrivals(path, 'ord_d')).toEqual([1, 3]);

    // Two events of a key that fail for good, then recovered: sent again in their order.
    await emit(svc, m, 'order.fulfilled', { id: 'ord_e', n: 1, fail: 'once' });
    await emit(svc, m, 'order.fulfilled', { id: 'ord_e', n: 2 });
    await failedOnce(hook.id);
    // as if both had failed for good (the schedule's hours)
    await svc.ctx.db
      .updateTable('deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('webhook_id', '=', hook.id)
      .where('ordering_key', '=', 'ord_e')
      .execute();
    const recovered = await svc.app.inject({
      method: 'POST',
      url: `${base}/${hook.id}/recover`,
      headers: m.auth,
      payload: { since },
    });
    expect(recovered.json<{ data: { count: number } }>().data.count).toBe(2);
    clock.advance(1); // recovered deliveries are due a microsecond apart from the recovery's time on

    await eventually(async () => arrivals(path, 'ord_e').length === 3, {
      what: 'ord_e sent again, in order',
    });
    expect(arrivals(path, 'ord_e')).toEqual([1, 1, 2]);
  });
});
