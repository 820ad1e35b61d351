// `svc listen --app` (API.md section 11.1): a developer streams what one of its test apps receives from the
// stores that installed it, as the app's webhooks get it. A child process against a listening service; the
// receiver verifies each request with the official `standardwebhooks` library and the printed secret.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { install, newApp, uninstall } from '../webhooks/app-helpers.ts';
import type { TestApp } from '../oauth/helpers.ts';
import { sseEvents } from '../../src/cli/listen.ts';
import { runCli, startCli, type Cli } from './cli-processes.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let app: TestApp;
let rx: Receiver;
let secret = '';
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-config-'));
const env = () => ({ XDG_CONFIG_HOME: configHome, HOME: configHome, SVC_API_URL: svc.url });
let listen: Cli | undefined;

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  dev = await signupMerchant(svc.app, 'App developer');
  shop = await signupMerchant(svc.app, 'Test shop');
  app = await newApp(svc, dev);
  rx = await startReceiver((r) => {
    try {
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      return { status: 202 };
    } catch {
      return { status: 400 };
    }
  });
  const login = await runCli(['login', '--email', dev.email], env(), `${dev.password}\n`);
  expect(login.status).toBe(0);
}, 180_000);
afterAll(async () => {
  listen?.child.kill('SIGKILL');
  await rx?.close();
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

const trigger = async (m: TestMerchant, type: string) => {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/events/trigger',
    headers: m.auth,
    payload: { type },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ data: { id: string } }>().data.id;
};

it("streams the app's events from its test installations, with the installation in each body", async () => {
  listen = startCli(['listen', '--app', app.id, '--forward-to', `${rx.url}/app`], env());
  secret = (await listen.waitFor(/Signing secret: (whsec_\S+)/))[1]!;
  const listenerId = listen.stdout().match(/listener (wh_\w+)/)![1]!;

  const grantId = await install(svc, app, shop, 'public:read');
  const own = await trigger(dev, 'order.created'); // the developer's own event: not the app's
  const fromShop = await trigger(shop, 'order.created');
  await uninstall(svc, shop, grantId);

  for (const type of ['app\\.installed', 'order\\.created', 'app\\.uninstalled'])
    await listen.waitFor(new RegExp(`${type}\\s+evt_\\S+\\s+-> 202`));
  const bodies = rx.received.map(
    (r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>,
  );
  expect(bodies.map((b) => b.type).sort()).toEqual(['app.installed', 'app.uninstalled', 'order.created']);
  for (const b of bodies)
    expect(b).toMatchObject({
      merchant_id: shop.merchantId,
      app_id: app.id,
      grant_id: grantId,
      store_id: shop.storeId,
    });
  expect(bodies.find((b) => b.type === 'order.created')!.id).toBe(fromShop);
  expect(bodies.map((b) => b.id)).not.toContain(own);

  // The stream is a listener among the app's webhooks while it is open, its deliveries recorded.
  const hooks = await svc.app.inject({
    url: `/api/v1/merchant/webhooks?app_id=${app.id}`,
    headers: dev.auth,
  });
  expect(hooks.json().data.items).toEqual([expect.objectContaining({ id: listenerId, kind: 'listener' })]);
  await expect
    .poll(
      async () =>
        (
          await svc.app.inject({
            url: `/api/v1/merchant/webhooks/${listenerId}/deliveries`,
            headers: dev.auth,
          })
        ).json().data.items,
      { timeout: 10_000 },
    )
    .toContainEqual(expect.objectContaining({ event_id: fromShop, status: 'succeeded' }));
  listen.child.kill('SIGINT');
  expect(await listen.exited).toBe(0);
}, 120_000);

it('refuses an app that is not one of the account’s test apps', async () => {
  const theirs = await newApp(svc, shop);
  const res = await svc.app.inject({
    url: `/api/v1/merchant/webhooks/listen?app_id=${theirs.id}`,
    headers: dev.auth,
  });
  expect(res.statusCode).toBe(400);
  expect(res.json().error.details[0].field).toBe('app_id');
});

it("an app's stream starts now: a Last-Event-ID (an event of the developer's own) replays nothing and stops nothing", async () => {
  const grantId = await install(svc, app, shop, 'public:read');
  const own = await trigger(dev, 'order.created');
  const missed = await trigger(shop, 'order.created'); // before the stream: the fan-out made it no delivery
  const stop = new AbortController();
  const res = await fetch(`${svc.url}/api/v1/merchant/webhooks/listen?app_id=${app.id}`, {
    headers: { ...dev.auth, accept: 'text/event-stream', 'last-event-id': own },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  const frames = sseEvents(res.body!);
  expect((await frames.next()).value).toMatchObject({ event: 'secret' });
  // The stream's listener exists once the secret is sent: the next event of the installed store is its first.
  const fresh = await trigger(shop, 'order.created');
  const ids: string[] = [];
  for (;;) {
    const { value, done } = await frames.next();
    if (done) throw new Error(`the stream ended before ${fresh}`);
    if (value.event !== 'webhook') continue;
    ids.push(value.id!);
    if (value.id === fresh) break;
  }
  stop.abort();
  expect(ids).toEqual([fresh]);
  expect(ids).not.toContain(missed);
  await uninstall(svc, shop, grantId);
}, 60_000);
