// `svc trigger` as an integrator uses it: events from the merchant's own store, related events sharing the
// object through --object, a misspelled --data field refused with its path, an unknown type answered with
// the catalog's types (the message said once), and a session refused for what it is: unknown to the service
// at --api-url (another service), or signed out.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_CATALOG, payloadProblems } from '../../src/modules/events/index.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { runCli } from './cli-processes.ts';

let svc: TestService;
let other: TestService;
let m: TestMerchant;
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-trigger-'));
const env = { XDG_CONFIG_HOME: configHome, HOME: configHome };

beforeAll(async () => {
  [svc, other] = await Promise.all([startTestService({ listen: true }), startTestService({ listen: true })]);
  m = await signupMerchant(svc.app);
  const login = await runCli(['login', '--email', m.email, '--api-url', svc.url], env, `${m.password}\n`);
  expect(login.stderr).toBe('');
  expect(login.status).toBe(0);
}, 180_000);
afterAll(async () => {
  await Promise.all([svc?.close(), other?.close()]);
  rmSync(configHome, { recursive: true, force: true });
});

interface Event {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

async function trigger(args: string[]): Promise<Event> {
  const run = await runCli(['trigger', ...args, '--json'], env);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Event;
}

it('triggers order.created, then order.paid of the same order with --object, from the merchant store', async () => {
  const created = await trigger(['order.created']);
  const paid = await trigger(['order.paid', '--object', String(created.data.id)]);
  expect(created.data.store_id).toBe(m.storeId);
  expect(paid.data).toMatchObject({ id: created.data.id, store_id: m.storeId, status: 'paid' });
  expect(paid.data.line_items).toEqual(created.data.line_items);
  expect(payloadProblems('order.paid', paid.data, true)).toEqual([]);
  const plain = await runCli(['trigger', 'order.cancelled', '--object', String(created.data.id)], env);
  expect(plain.stdout).toMatch(
    new RegExp(`^Triggered order\\.cancelled: evt_\\S+ \\(object ${String(created.data.id)}\\)`),
  );
});

it('refuses a --data field the schema does not name, saying where, once', async () => {
  const run = await runCli(['trigger', 'order.paid', '--data', '{"total": 4200}'], env);
  expect(run.status).toBe(1);
  expect(run.stderr).toBe(
    'svc: validation_failed: data.total is not an allowed field (schema of order.paid).\n',
  );
});

it('answers an unknown event type with the types of the catalog, the message said once', async () => {
  const run = await runCli(['trigger', 'order.exploded'], env);
  expect(run.status).toBe(1);
  expect(run.stderr.match(/is not an event type/g)).toHaveLength(1);
  expect(run.stderr).toMatch(/^svc: order\.exploded is not an event type of the catalog\. Event types:\n/);
  for (const { id } of EVENT_CATALOG) expect(run.stderr).toContain(`\n  ${id}`);
  // The same list in its help.
  const help = await runCli(['trigger', '--help'], env);
  expect(help.status).toBe(0);
  for (const { id } of EVENT_CATALOG) expect(help.stdout).toContain(`\n  ${id}`);
});

it('says that a service at another --api-url does not know the session, and that a signed-out one ended', async () => {
  const elsewhere = await runCli(['trigger', 'order.created', '--api-url', other.url], env);
  expect(elsewhere.status).toBe(1);
  expect(elsewhere.stderr).toContain(
    `invalid_credential: the service at ${other.url} does not know this session: \`svc login\` signed in at ${svc.url}.`,
  );
  expect(elsewhere.stderr).not.toMatch(/expired/);

  // The CLI's own session, signed out from elsewhere (the dashboard, another terminal).
  const { token } = JSON.parse(readFileSync(join(configHome, 'svc', 'session.json'), 'utf8')) as {
    token: string;
  };
  await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/logout',
    headers: { authorization: `Bearer ${token}` },
  });
  const signedOut = await runCli(['trigger', 'order.created'], env);
  expect(signedOut.status).toBe(1);
  expect(signedOut.stderr).toContain(`the service at ${svc.url} no longer accepts this session`);
});
