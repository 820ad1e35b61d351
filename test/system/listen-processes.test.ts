// `svc listen` under the multi-process deployment: a listen stream attached to one service process gets,
// signed, an event ingested through another process on the same PostgreSQL, through LISTEN/NOTIFY.
// (pg project only.)
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, INTERNAL_TOKEN, killAll, startProcess } from '../support/processes.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  killAll();
  await database?.drop();
});

interface Frame {
  id: string;
  event: string;
  data: {
    delivery_id: string;
    webhook_id: string;
    headers: Record<string, string>;
    body: string;
    secret: string;
  };
}

/** Reads a Server-Sent Events response into frames as they arrive. */
function readFrames(body: ReadableStream<Uint8Array>, frames: Frame[]): void {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        const data = field('data');
        if (data) frames.push({ id: field('id') ?? '', event: field('event') ?? '', data: JSON.parse(data) });
      }
    }
  })();
}

it('an event ingested on one process reaches a listener attached to the other', async () => {
  const a = await startProcess(database.url!);
  const b = await startProcess(database.url!);
  const signup = await call<{ token: string; merchant: { id: string } }>(
    a.url,
    '/api/v1/merchant/auth/signup',
    {
      method: 'POST',
      body: {
        merchant_name: 'Listen',
        email: `listen-${Date.now()}@example.com`,
        password: 'long enough pw',
      },
    },
  );
  const token = signup.data.token;
  const stop = new AbortController();
  const res = await fetch(`${b.url}/api/v1/merchant/webhooks/listen`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames: Frame[] = [];
  readFrames(res.body!, frames);
  await expect.poll(() => frames.length, { timeout: 20_000 }).toBeGreaterThan(0);
  const { secret, webhook_id } = frames[0]!.data;
  expect(frames[0]!.event).toBe('secret');
  expect(secret).toMatch(/^whsec_/);

  // The listener, opened on b, is in the webhooks list that a answers.
  const list = await call<{ items: { id: string; kind: string }[] }>(a.url, '/api/v1/merchant/webhooks', {
    token,
  });
  expect(list.data.items).toContainEqual(expect.objectContaining({ id: webhook_id, kind: 'listener' }));

  // Ingested through the platform's route on a, with the catalog's example data of the type.
  const catalog = await call<{ items: { id: string; example?: unknown }[] }>(
    a.url,
    '/api/v1/merchant/webhooks/events',
    { token },
  );
  const example = catalog.data.items.find((e) => e.id === 'cart.abandoned')?.example ?? {};
  const ingested = await fetch(`${a.url}/internal/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      merchant_id: signup.data.merchant.id,
      mode: 'test',
      type: 'cart.abandoned',
      data: example,
    }),
  });
  const raw = await ingested.text();
  expect(ingested.status, raw).toBe(202);
  const eventId = (JSON.parse(raw) as { data: { id: string } }).data.id;
  const started = Date.now();
  await expect.poll(() => frames.find((f) => f.id === eventId), { timeout: 10_000 }).toBeTruthy();
  const frame = frames.find((f) => f.id === eventId)!;
  expect(frame.event).toBe('webhook');
  const payload = new Webhook(secret).verify(frame.data.body, frame.data.headers) as {
    id: string;
    type: string;
  };
  expect(payload).toMatchObject({ id: eventId, type: 'cart.abandoned' });
  // Woken by the notification, not found by a later poll alone: well under the 1 s poll on a quiet machine,
  // so the bound here only guards against the stream never waking.
  expect(Date.now() - started).toBeLessThan(10_000);
  stop.abort();
  await expect
    .poll(
      async () =>
        (
          await call<{ items: { id: string }[] }>(a.url, '/api/v1/merchant/webhooks', { token })
        ).data.items.map((w) => w.id),
      { timeout: 10_000 },
    )
    .not.toContain(webhook_id);
}, 180_000);
