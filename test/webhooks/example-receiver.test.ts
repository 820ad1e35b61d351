// examples/webhook-receiver.ts runs as documented and accepts real deliveries, once per event.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { freePort } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';
import { INTERNAL_TOKEN, base, createWebhook, emit } from './helpers.ts';

let svc: TestService;
let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'svc-receiver-'));
beforeAll(async () => {
  svc = await startTestService({ workers: true, env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('verifies, stores and acknowledges deliveries, and answers a repeat as a duplicate', async () => {
  const m = await signupMerchant(svc.app);
  const port = await freePort();
  const wh = await createWebhook(svc, m, `http://127.0.0.1:${port}/webhooks`, ['order.paid']);
  const store = join(dir, 'events.jsonl');
  let out = '';
  child = spawn(process.execPath, ['examples/webhook-receiver.ts'], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: wh.secret, PORT: String(port), EVENTS_FILE: store },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await eventually(async () => out.includes('listening'), { what: 'the example receiver to listen' });

  const ev = await emit(svc, m, 'order.paid', { id: 'ord_9' });
  await eventually(async () => out.includes(ev.id), { what: 'the example receiver to print the event' });
  expect(out).toContain(`order.paid ${ev.id} (test) {"id":"ord_9",`);
  expect(readFileSync(store, 'utf8')).toContain(ev.id);

  const test = await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/test`, headers: m.auth });
  expect(test.json().data.attempts[0].response_status).toBe(204);
});
