// Endpoint health from its counters (migration 0205, docs/decisions/0205-webhook-health-counters.md) is what a
// plain count of the deliveries says (the statement the list ran before): after creations of every kind (the
// fan-out, seeds, resend, test sends that do not count), attempts and retries by the workers, a retry by hand of
// a succeeded delivery, a recovery, and the purges; for windows that begin on the hour and anywhere within one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { INTERNAL_TOKEN, createWebhook, deliveries, emit, type CreatedWebhook } from './helpers.ts';
import { idFloor, newId } from '../../src/lib/ids.ts';
import { listWebhooks, viewWebhook } from '../../src/modules/webhooks/webhooks.repository.ts';
import { purgeHealthCounts } from '../../src/modules/webhooks/index.ts';
import { purgeExpired } from '../../src/modules/retention/index.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
let ok: CreatedWebhook;
let bad: CreatedWebhook;
let failing = true;
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '0.2' },
  });
  m = await signupMerchant(svc.app);
  rx = await startReceiver((r) => ({ status: r.path === '/bad' && failing ? 500 : 200 }));
  ok = await createWebhook(svc, m, `${rx.url}/ok`, ['order.created']);
  bad = await createWebhook(svc, m, `${rx.url}/bad`, ['order.paid']);
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

const scope = () => ({ merchantId: m.merchantId, mode: 'test' as const });
const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  svc.app.inject({ method, url: `/api/v1/merchant${url}`, headers: m.auth, ...(payload ? { payload } : {}) });

interface Counts {
  deliveries: number;
  attempted: number;
  succeeded: number;
}

/** The plain count: every real delivery of the webhook created since `since`. */
async function counted(webhookId: string, since: Date): Promise<Counts> {
  const { rows } = await sql<Counts>`
    select count(*)::int as deliveries, (count(*) filter (where attempt_count > 0))::int as attempted,
           (count(*) filter (where status = 'succeeded'))::int as succeeded
    from deliveries where webhook_id = ${webhookId} and id >= ${idFloor('dlv', since)} and not test`.execute(
    svc.ctx.db,
  );
  return rows[0]!;
}

/** The list and the webhook's own read agree with the plain count, for windows ending now and before. */
async function agree() {
  const now = Date.now();
  const sinces = [now - DAY, now - 2 * HOUR, Math.floor((now - DAY) / HOUR) * HOUR];
  for (const offset of [1, 17 * 60_000, 59 * 60_000 + 59_999])
    sinces.push(Math.floor((now - DAY) / HOUR) * HOUR + offset);
  for (const at of sinces) {
    const since = new Date(at);
    const page = await listWebhooks(svc.ctx.db, scope(), { limit: 100 }, since);
    for (const id of [ok.id, bad.id]) {
      const want = await counted(id, since);
      const item = page.items.find((w) => w.id === id)!;
      const shown = { deliveries: item.deliveries, attempted: item.attempted, succeeded: item.succeeded };
      expect(shown, `${id} since ${since.toISOString()}`).toEqual(want);
      const one = (await viewWebhook(svc.ctx.db, scope(), id, since))!;
      expect({ deliveries: one.deliveries, attempted: one.attempted, succeeded: one.succeeded }).toEqual(
        want,
      );
    }
  }
}

const settled = (webhookId: string, n: number) =>
  eventually(async () => {
    const page = await deliveries(svc, m, webhookId);
    return page.items.length >= n && page.items.every((d) => d.status !== 'pending') ? page : undefined;
  });

describe('health counts', () => {
  it('counts seeded deliveries of the last three days, each hour and state, tests aside', async () => {
    // one INSERT of many rows, as a replay's batch or a seed: the trigger counts them by hour
    const rows = [];
    for (let k = 0; k < 80; k++) {
      const at = Date.now() - k * 53 * 60_000 - 1234;
      rows.push({
        id: newId('dlv', at),
        webhook_id: k % 2 ? ok.id : bad.id,
        merchant_id: m.merchantId,
        mode: 'test' as const,
        event_id: `evt_seed_${k}`,
        event_type: k % 2 ? 'order.created' : 'order.paid',
        status: (['succeeded', 'failed', 'cancelled'] as const)[k % 3]!,
        attempt_count: k % 3 === 2 ? 0 : 1 + (k % 4),
        test: k % 7 === 0,
        next_attempt_at: null,
        created_at: new Date(at),
        updated_at: new Date(at),
      });
    }
    await svc.ctx.db.insertInto('deliveries').values(rows).execute();
    await agree();
  });

  it('counts the fan-out, attempts and retries, a retry by hand, a resend and a recovery', async () => {
    for (let i = 0; i < 3; i++) await emit(svc, m, 'order.created', { id: `order_ok_${i}` });
    for (let i = 0; i < 2; i++) await emit(svc, m, 'order.paid', { id: `order_bad_${i}` });
    await settled(ok.id, 3);
    await settled(bad.id, 2); // two attempts each, then failed
    await agree();

    // a succeeded delivery retried by hand is pending again, then succeeded again (once: the workers may take it
    // at any moment, so the counts are compared when they have)
    const done = (await deliveries(svc, m, ok.id)).items.find((d) => d.status === 'succeeded')!;
    expect((await call('POST', `/webhooks/${ok.id}/deliveries/${done.id}/retry`)).statusCode).toBeLessThan(
      300,
    );
    await settled(ok.id, 3);
    await agree();

    // a test send does not count; a resend does
    expect((await call('POST', `/webhooks/${ok.id}/test`)).statusCode).toBeLessThan(300);
    const event = await emit(svc, m, 'order.paid', { id: 'order_bad_2' });
    await settled(bad.id, 3);
    expect(
      (await call('POST', `/events/${event.id}/resend`, { webhook_id: bad.id })).statusCode,
    ).toBeLessThan(300);
    await settled(bad.id, 4);
    await agree();

    // a recovery once the endpoint is back: failed deliveries attempted again, and succeeding
    failing = false;
    const since = new Date(Date.now() - HOUR).toISOString();
    expect((await call('POST', `/webhooks/${bad.id}/recover`, { since })).statusCode).toBeLessThan(300);
    await eventually(async () =>
      (await counted(bad.id, new Date(since))).succeeded >= 4 ? true : undefined,
    );
    await settled(bad.id, 4);
    await agree();
  });

  it('purges counts of hours past two days, and deliveries past retention, and still agrees', async () => {
    // (the service's own purge loop may have run first: its first run is 5 s after start)
    while ((await purgeHealthCounts(svc.ctx.db, new Date(Date.now() - 2 * DAY), 3)) > 0);
    const after = await svc.ctx.db
      .selectFrom('webhook_delivery_counts')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('hour', '<', new Date(Date.now() - 2 * DAY))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(0);
    // the shortest retention (a day): what it deletes is older than any window read
    while ((await purgeExpired(svc.ctx.db, new Date(Date.now() - DAY))) > 0);
    await agree();
  });
});
