// A clean stop lets the sends in flight finish and records them, and claims nothing more.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { startWorker } from '../../src/modules/delivery/worker.ts';
import { SigningKeys } from '../../src/modules/delivery/attempt.ts';
import { DELIVERY_CHANNEL, Signal } from '../../src/modules/outbox/signal.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { INTERNAL_TOKEN, createWebhook, deliveries, emit } from './helpers.ts';

let svc: TestService;
let rx: Receiver;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  rx = await startReceiver(() => ({ status: 200, delayMs: 400 }));
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

it('finishes and records in-flight sends on stop, then sends nothing', async () => {
  const m = await signupMerchant(svc.app);
  const wh = await createWebhook(svc, m, `${rx.url}/stop`, ['order.paid']);
  const worker = await startWorker(svc.ctx, {
    signal: new Signal(svc.ctx, DELIVERY_CHANNEL), // woken by the service's NOTIFY, as another process's
    keys: new SigningKeys(svc.config.masterKeys),
  });
  for (let i = 0; i < 5; i++) await emit(svc, m, 'order.paid');
  await rx.waitFor(5, 5000);
  await worker.stop(); // the receiver is still answering: stop waits for the answers
  const list = await deliveries(svc, m, wh.id);
  expect(list.items.map((d) => d.status)).toEqual(Array(5).fill('succeeded'));

  await emit(svc, m, 'order.paid'); // no worker any more: stays pending, unleased
  // A worker that kept polling would claim it within its poll period (1 s, a real timer): only that much
  // time passing can show that none does.
  // eslint-disable-next-line no-restricted-syntax -- an absence over one poll period of the stopped worker
  await new Promise((r) => setTimeout(r, 1200));
  expect(rx.received).toHaveLength(5);
  const pending = (await deliveries(svc, m, wh.id, '?status=pending')).items;
  expect(pending).toHaveLength(1);
});
