// What the delivery worker logs. A receiver that fails is the merchant's business: the attempt is recorded with
// the delivery (its error in full) and said at info, never as a warning. A failure of the worker itself (an
// attempt that threw, outcomes it could not record) is a warning that carries the error: its type and message.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { captureLogs } from '../support/logs.ts';
import { INTERNAL_TOKEN, createWebhook, deliveries, emit } from './helpers.ts';

const { stream, lines } = captureLogs();
const WARN = 40;

let svc: TestService;
let rx: Receiver;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    logStream: stream,
    env: { SVC_LOG_LEVEL: 'info', SVC_INTERNAL_TOKEN: INTERNAL_TOKEN },
  });
  rx = await startReceiver(() => ({ status: 200 }));
  m = await signupMerchant(svc.app);
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

it('records a send to an unreachable receiver and says it at info, not as a warning', async () => {
  // Port 1 of the loopback: nothing listens, the connection is refused at once.
  const wh = await createWebhook(svc, m, 'http://127.0.0.1:1/hook', ['order.paid']);
  await emit(svc, m, 'order.paid');
  const [failed] = await eventually(async () => {
    const items = (await deliveries(svc, m, wh.id)).items;
    return items[0]?.attempt_count === 1 ? items : undefined;
  });
  expect(failed!.last_error).toMatch(/^ECONNREFUSED: .*127\.0\.0\.1:1/);
  const line = lines.find((l) => l.delivery_id === failed!.id);
  expect(line).toMatchObject({
    level: 30,
    msg: 'delivery attempt failed; retry scheduled',
    outcome: 'network',
    error: 'ECONNREFUSED',
  });
  expect(lines.filter((l) => l.level >= WARN && l.delivery === failed!.id)).toEqual([]);
});

it('warns with the error when an attempt throws (a secret no listed master key opens)', async () => {
  const wh = await createWebhook(svc, m, `${rx.url}/unopenable`, ['order.fulfilled']);
  await sql`update webhooks set secret_sealed = 'v2.retiredkey.aaaa.bbbb.cccc' where id = ${wh.id}`.execute(
    svc.ctx.db,
  );
  await emit(svc, m, 'order.fulfilled');
  const line = await eventually(async () =>
    lines.find((l) => l.level === WARN && l.msg === 'delivery attempt failed'),
  );
  expect(line.err).toMatchObject({
    type: 'UnknownMasterKeyError',
    message: expect.stringContaining('retiredkey'),
  });
  expect(line.delivery).toMatch(/^dlv_/);
  expect(rx.received).toHaveLength(0);
});

it('warns with the error when the outcomes of sent attempts cannot be recorded', async () => {
  const wh = await createWebhook(svc, m, `${rx.url}/unrecorded`, ['order.created']);
  await sql`alter table delivery_attempts rename to delivery_attempts_away`.execute(svc.ctx.db);
  try {
    await emit(svc, m, 'order.created');
    const line = await eventually(async () =>
      lines.find((l) => l.level === WARN && l.msg === 'recording delivery outcomes failed'),
    );
    expect(line.err).toMatchObject({
      type: expect.stringMatching(/\w/),
      message: expect.stringContaining('delivery_attempts'),
    });
    expect(line.err).not.toMatchObject({ type: 'String' });
    expect(line.outcomes).toBe(1);
    expect(rx.received).toHaveLength(1); // the send happened; only its record is missing
  } finally {
    await sql`alter table delivery_attempts_away rename to delivery_attempts`.execute(svc.ctx.db);
  }
  // Unrecorded, the delivery is still pending under its lease: sent again once the lease runs out.
  const [pending] = (await deliveries(svc, m, wh.id)).items;
  expect(pending).toMatchObject({ status: 'pending', attempt_count: 0 });
});
