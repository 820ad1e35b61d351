// The local webhook loop end to end: `svc login`, `svc listen --forward-to` (a child process) against a
// receiver that verifies with the official `standardwebhooks` library using the printed secret, then
// `svc trigger order.created`. Then a burst during which the stream is cut (a proxy between the CLI and the
// service drops every connection): the CLI reconnects with Last-Event-ID and each event arrives once.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { sseEvents } from '../../src/cli/listen.ts';
import { runCli, startCli, type Cli } from './cli-processes.ts';

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
let secret = '';
const verified: string[] = [];
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-config-'));
const env = () => ({ XDG_CONFIG_HOME: configHome, HOME: configHome, SVC_API_URL: svc.url });
const listeners: Cli[] = [];

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  m = await signupMerchant(svc.app);
  rx = await startReceiver((r) => {
    try {
      const payload = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
        id: string;
      };
      verified.push(payload.id);
      return { status: 202 };
    } catch {
      return { status: 400 };
    }
  });
  const login = await runCli(['login', '--email', m.email], env(), `${m.password}\n`);
  expect(login.stderr).toBe('');
  expect(login.status).toBe(0);
}, 180_000);
afterAll(async () => {
  for (const l of listeners) l.child.kill('SIGKILL');
  await rx?.close();
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

function api(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  return svc.app.inject({
    method,
    url: `/api/v1/merchant${url}`,
    headers: m.auth,
    ...(payload !== undefined ? { payload } : {}),
  });
}

it('login keeps the session in the config directory, readable by its owner only', () => {
  const file = join(configHome, 'svc', 'session.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

it('forwards a triggered event, signed, to the local receiver and records the answer', async () => {
  const listen = startCli(['listen', '--forward-to', `${rx.url}/hooks`], env());
  listeners.push(listen);
  secret = (await listen.waitFor(/Signing secret: (whsec_\S+)/))[1]!;
  const listenerId = listen.stdout().match(/listener (wh_\w+)/)![1]!;

  const list = await api('GET', '/webhooks');
  const listener = list.json().data.items.find((w: { id: string }) => w.id === listenerId);
  expect(listener).toMatchObject({ kind: 'listener', status: 'enabled', mode: 'test' });

  const trigger = await runCli(['trigger', 'order.created'], env());
  expect(trigger.stderr).toBe('');
  expect(trigger.status).toBe(0);
  const eventId = trigger.stdout.match(/Triggered order\.created: (evt_\S+)/)![1]!;

  const line = await listen.waitFor(new RegExp(`order\\.created\\s+${eventId}\\s+-> 202\\s+\\d+ ms`));
  expect(line[0]).toBeTruthy();
  expect(verified).toContain(eventId);
  const got = rx.received.find((r) => r.headers['webhook-id'] === eventId)!;
  expect(JSON.parse(got.body)).toMatchObject({ id: eventId, type: 'order.created', mode: 'test' });

  // The listener's delivery, with the status the CLI reported, in the deliveries API.
  await expect
    .poll(async () => (await api('GET', `/webhooks/${listenerId}/deliveries`)).json().data.items, {
      timeout: 10_000,
    })
    .toContainEqual(
      expect.objectContaining({ event_id: eventId, status: 'succeeded', last_response_status: 202 }),
    );
  const deliveries = (await api('GET', `/webhooks/${listenerId}/deliveries`)).json().data.items;
  const one = deliveries.find((d: { event_id: string }) => d.event_id === eventId);
  const detail = (await api('GET', `/webhooks/${listenerId}/deliveries/${one.id}`)).json().data;
  expect(detail.attempts).toEqual([expect.objectContaining({ number: 1, response_status: 202 })]);
  const event = (await api('GET', `/events/${eventId}`)).json().data;
  expect(event.deliveries.map((d: { webhook_id: string }) => d.webhook_id)).toContain(listenerId);

  // A listener is the stream's: it cannot be changed, and it vanishes when the stream closes.
  const patch = await svc.app.inject({
    method: 'PATCH',
    url: `/api/v1/merchant/webhooks/${listenerId}`,
    headers: m.auth,
    payload: { description: 'x' },
  });
  expect(patch.json().error.code).toBe('conflict');
  listen.child.kill('SIGINT');
  expect(await listen.exited).toBe(0);
  await expect
    .poll(async () => (await api('GET', '/webhooks')).json().data.items.map((w: { id: string }) => w.id), {
      timeout: 10_000,
    })
    .not.toContain(listenerId);
}, 120_000);

it('refuses live mode and unknown event types; --print-secret prints the same secret', async () => {
  const live = await svc.app.inject({
    method: 'GET',
    url: '/api/v1/merchant/webhooks/listen',
    headers: { ...m.auth, 'x-svc-mode': 'live' },
  });
  expect(live.statusCode).toBe(403);
  expect(live.json().error.code).toBe('forbidden');
  const bad = await api('GET', '/webhooks/listen?events=order.nope');
  expect(bad.statusCode).toBe(400);
  expect(bad.json().error.details[0].field).toBe('events');
  const printed = await runCli(['listen', '--print-secret'], env());
  expect(printed.status).toBe(0);
  expect(printed.stdout.trim()).toBe(secret);
}, 60_000);

/** A TCP proxy to the service whose connections the test can cut. */
async function startProxy(target: URL): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () =>
      new Promise<void>((r) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => r());
      }),
  };
}

it('a stream cut mid-burst reconnects with Last-Event-ID: every event arrives exactly once', async () => {
  const proxy = await startProxy(new URL(svc.url));
  const listen = startCli(['listen', '--forward-to', `${rx.url}/burst`, '--api-url', proxy.url], env());
  listeners.push(listen);
  await listen.waitFor(/Signing secret: (whsec_\S+)/);

  const ids: string[] = [];
  const trigger = async (n: number) => {
    const res = await api('POST', '/events/trigger', { type: 'order.paid', data: {} });
    expect(res.statusCode, res.body).toBe(201);
    ids[n] = res.json().data.id;
  };
  const N = 60;
  for (let n = 0; n < N; n += 4) {
    await Promise.all([n, n + 1, n + 2, n + 3].map(trigger));
    // Cut once some events of the burst went through the stream, while the rest are still to come.
    if (n === 20) {
      await rx.waitFor(5, 20_000, (r) => r.path === '/burst');
      proxy.cut();
    }
  }
  await rx.waitFor(N, 60_000, (r) => r.path === '/burst');
  // Nothing more comes: the CLI forwards in the stream's order, one at a time, and the stream replays only
  // at a reconnect, so once an event triggered after the burst has arrived, any copy of a burst event that
  // the replay brought has been forwarded (or recognised) before it.
  const sentinel = (await api('POST', '/events/trigger', { type: 'order.paid', data: {} })).json().data.id;
  await rx.waitFor(1, 20_000, (r) => r.headers['webhook-id'] === sentinel);
  const got = rx.received
    .filter((r) => r.path === '/burst' && r.headers['webhook-id'] !== sentinel)
    .map((r) => String(r.headers['webhook-id']));
  // Every event of the burst arrived exactly once, by id, and nothing from before the session did.
  expect([...got].sort()).toEqual([...ids].sort());
  expect(listen.stderr()).toMatch(/reconnecting after evt_/);
  listen.child.kill('SIGINT');
  await listen.exited;
  await proxy.close();
}, 180_000);

/** Opens the listen stream as any EventSource client would, and reads its webhook frames' ids. */
async function openStream(lastEventId?: string) {
  const stop = new AbortController();
  const res = await fetch(`${svc.url}/api/v1/merchant/webhooks/listen`, {
    headers: {
      ...m.auth,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  const frames = sseEvents(res.body!);
  const first = await frames.next();
  expect(first.value).toMatchObject({ event: 'secret' });
  return {
    /** The ids of the webhook frames up to and including `id`. */
    async readUntil(id: string): Promise<string[]> {
      const ids: string[] = [];
      for (;;) {
        const { value, done } = await frames.next();
        if (done) throw new Error(`the stream ended before ${id}`);
        if (value.event !== 'webhook') continue;
        ids.push(value.id!);
        if (value.id === id) return ids;
      }
    },
    close: () => stop.abort(),
  };
}

it('a reconnect replays what the session missed, never an event from before the session began', async () => {
  const trigger = async () =>
    (await api('POST', '/events/trigger', { type: 'order.paid', data: {} })).json().data.id as string;
  // Recorded a moment before the client starts listening: within the replay's settle window of what follows.
  const before = await trigger();
  const first = await openStream();
  const seen = await trigger();
  expect(await first.readUntil(seen)).toEqual([seen]);
  first.close();

  const second = await openStream(seen);
  const after = await trigger();
  expect(await second.readUntil(after)).toEqual([after]);
  second.close();
  expect(before).not.toBe(seen);
}, 60_000);
