// Deleting cancels pending deliveries; five days of failures disable a webhook (test deliveries excepted);
// old deliveries are purged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, withReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit } from './helpers.ts';
import { newId } from '../../src/lib/ids.ts';
import { purgeExpired } from '../../src/modules/retention/index.ts';
import { claimDeliveries } from '../../src/modules/delivery/claim-deliveries.repository.ts';

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    // the first retry comes after 30 s: long enough for a pending delivery to wait while the test acts
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '30,30' },
  });
  m = await signupMerchant(svc.app);
  rx = await startReceiver(() => ({ status: 500 }));
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

const statusOf = async (id: string) =>
  (await svc.ctx.db.selectFrom('deliveries').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status;

describe('deleting a webhook', () => {
  it('cancels its pending deliveries and sends nothing more', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/deleted`);
    await emit(svc, m);
    const pending = await eventually(async () => {
      const [d] = (await deliveries(svc, m, wh.id)).items;
      return d && d.attempt_count === 1 && d.status === 'pending' ? d : undefined;
    });
    const del = await svc.app.inject({ method: 'DELETE', url: `${base}/${wh.id}`, headers: m.auth });
    expect(del.statusCode).toBe(204);
    expect(await statusOf(pending.id)).toBe('cancelled');
    // due now or not, a cancelled delivery is out of the queue: the workers' claim does not take it (run
    // here in a transaction rolled back, so that it leases nothing)
    await svc.ctx.db
      .updateTable('deliveries')
      .set({ next_attempt_at: new Date(svc.ctx.clock.now()) })
      .where('id', '=', pending.id)
      .execute();
    let claimed: string[] = [];
    const probe = svc.ctx.db.transaction().execute(async (trx) => {
      const { rows } = await claimDeliveries(trx, {
        worker: 'probe',
        limit: 1000,
        leaseMs: 60_000,
        perWebhook: 1000,
        inFlight: {},
        skipSaturated: false,
        now: new Date(svc.ctx.clock.now()),
        horizonMs: 1000,
      });
      claimed = rows.map((r) => r.id);
      throw new Error('rolled back');
    });
    await expect(probe).rejects.toThrow('rolled back');
    expect(claimed).not.toContain(pending.id);
    expect(rx.received.filter((r) => r.path === '/deleted')).toHaveLength(1);
  });

  it('disabling cancels pending retries too', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/disabled`, ['order.paid']);
    await emit(svc, m, 'order.paid');
    const pending = await eventually(async () => {
      const [d] = (await deliveries(svc, m, wh.id)).items;
      return d && d.attempt_count === 1 ? d : undefined;
    });
    await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/disable`, headers: m.auth });
    expect(await statusOf(pending.id)).toBe('cancelled');
  });
});

describe('auto-disable after five days of failures', () => {
  it('disables a webhook failing for five days, audited as the system; test deliveries never count', async () => {
    const merchant = await signupMerchant(svc.app);
    const wh = await createWebhook(svc, merchant, `${rx.url}/failing`, ['order.paid']);
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    await svc.ctx.db
      .updateTable('webhooks')
      .set({ failing_since: sixDaysAgo })
      .where('id', '=', wh.id)
      .execute();

    // a failed test delivery does not count
    const test = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/test`,
      headers: merchant.auth,
    });
    expect(test.json().data).toMatchObject({ test: true, attempt_count: 1, last_response_status: 500 });
    const afterTest = await svc.app.inject({ url: `${base}/${wh.id}`, headers: merchant.auth });
    expect(afterTest.json().data.status).toBe('enabled');

    await emit(svc, merchant, 'order.paid');
    const hook = await eventually(async () => {
      const res = await svc.app.inject({ url: `${base}/${wh.id}`, headers: merchant.auth });
      const data = res.json<{ data: { status: string; disabled_reason: string } }>().data;
      return data.status === 'disabled' ? data : undefined;
    });
    expect(hook.disabled_reason).toMatch(/5 days/);
    const logs = await svc.app.inject({
      url: `/api/v1/merchant/developer/logs?action=webhook.auto_disabled`,
      headers: merchant.auth,
    });
    const [entry] = logs.json<{ data: { items: { entity_id: string; metadata: string }[] } }>().data.items;
    expect(entry!.entity_id).toBe(wh.id);
    expect(JSON.parse(entry!.metadata)).toMatchObject({ actor: { type: 'system' } });
  });

  it('a success ends the failure streak', async () => {
    const merchant = await signupMerchant(svc.app);
    await withReceiver(
      () => ({ status: 200 }),
      async (ok) => {
        const wh = await createWebhook(svc, merchant, `${ok.url}/recovering`, ['order.paid']);
        await svc.ctx.db
          .updateTable('webhooks')
          .set({ failing_since: new Date(Date.now() - 86_400_000) })
          .where('id', '=', wh.id)
          .execute();
        await emit(svc, merchant, 'order.paid');
        await eventually(async () => {
          const row = await svc.ctx.db
            .selectFrom('webhooks')
            .select('failing_since')
            .where('id', '=', wh.id)
            .executeTakeFirstOrThrow();
          return row.failing_since === null;
        });
      },
    );
  });
});

describe('retention', () => {
  it('purges finished deliveries, their attempts and events older than the retention period', async () => {
    const merchant = await signupMerchant(svc.app);
    const wh = await createWebhook(svc, merchant, `${rx.url}/old`, ['order.paid']);
    const old = new Date(Date.now() - 32 * 86_400_000);
    const db = svc.ctx.db;
    let sequence = 1_000_000; // above what the merchant's recorded events take
    const make = async (at: Date) => {
      const eventId = newId('evt', at.getTime());
      const id = newId('dlv', at.getTime());
      await db
        .insertInto('events')
        .values({
          id: eventId,
          merchant_id: merchant.merchantId,
          mode: 'test',
          type: 'order.paid',
          payload: '{}',
          created_at: at,
          sequence: sequence++,
        })
        .execute();
      await db
        .insertInto('deliveries')
        .values({
          id,
          webhook_id: wh.id,
          merchant_id: merchant.merchantId,
          mode: 'test',
          event_id: eventId,
          event_type: 'order.paid',
          status: 'failed',
          next_attempt_at: null,
          created_at: at,
        })
        .execute();
      await db
        .insertInto('delivery_attempts')
        .values({
          id: newId('att', at.getTime()),
          delivery_id: id,
          merchant_id: merchant.merchantId,
          mode: 'test',
          webhook_id: wh.id,
          event_id: eventId,
          event_type: 'order.paid',
          outcome: 'failed',
          number: 1,
          started_at: at,
          duration_ms: 1,
          response_status: 500,
          response_body: '',
          error: 'x',
        })
        .execute();
      return { id, eventId };
    };
    const expired = await make(old);
    const recent = await make(new Date());
    while ((await purgeExpired(db, new Date(Date.now() - 30 * 86_400_000))) > 0);
    const ids = (await deliveries(svc, merchant, wh.id)).items.map((d) => d.id);
    expect(ids).toEqual([recent.id]);
    const attempts = await sql<{
      n: number;
    }>`select count(*)::int as n from delivery_attempts where delivery_id = ${expired.id}`.execute(db);
    expect(attempts.rows[0]!.n).toBe(0);
    const events = await db
      .selectFrom('events')
      .select('id')
      .where('id', 'in', [expired.eventId, recent.eventId])
      .execute();
    expect(events.map((e) => e.id)).toEqual([recent.eventId]);
  });
});
