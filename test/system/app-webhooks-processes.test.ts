// App webhooks across operating-system processes (`node src/main.ts`) on one PostgreSQL database: an install,
// a narrower consent, a narrowed `allowed_scopes` and an uninstall made through process A hold for the very
// next event ingested through process B, whose fan-out reads the grants in its own statement. And a
// store.redact scheduled by a process that is killed before it is due is sent by a process started later.
// Receivers verify every request with the official `standardwebhooks` library. (pg project only.)
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleData } from '../../src/modules/events/index.ts';
import { freshDatabase } from '../support/service.ts';
import { INTERNAL_TOKEN, call, startProcess, stopAll, type ServiceProcess } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

const REDIRECT = 'https://app.example.com/cb';
let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: ServiceProcess;
let b: ServiceProcess;
let rx: Receiver;

async function signup(base: string, name: string) {
  const email = `sys-${randomBytes(6).toString('hex')}@example.com`;
  const res = await call(base, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: { merchant_name: name, email, password: 'correct horse battery' },
  });
  return { token: res.data.token as string, id: res.data.merchant.id as string };
}

/** The shop approves the app with these scopes through process A (an install, or a new consent). */
async function consent(shop: string, clientId: string, scope: string): Promise<void> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 's',
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const asked = await call(a.url, `/api/public/v1/oauth/authorize?${query}`, { token: shop });
  const decided = await call(a.url, '/api/public/v1/oauth/authorize/consent', {
    method: 'POST',
    token: shop,
    body: { consent_id: asked.data.consent_id, approve: true },
  });
  expect(decided.status).toBe(200);
}

/** An order.created of the merchant, ingested through `base`: how many deliveries its fan-out made. */
async function ingest(base: string, merchantId: string): Promise<number> {
  const res = await fetch(`${base}/internal/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      merchant_id: merchantId,
      mode: 'test',
      type: 'order.created',
      data: sampleData('order.created'),
    }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { data: { deliveries: number } }).data.deliveries;
}

async function appWithWebhook(dev: string, path: string, events: string[]) {
  const app = await call(a.url, '/api/v1/merchant/developer/apps', {
    method: 'POST',
    token: dev,
    body: { name: 'Sys app', redirect_uris: [REDIRECT], allowed_scopes: ['public:*'] },
  });
  const hook = await call(a.url, '/api/v1/merchant/webhooks', {
    method: 'POST',
    token: dev,
    body: { url: `${rx.url}${path}`, events, app_id: app.data.id },
  });
  expect(hook.status).toBe(201);
  return { app: app.data as { id: string; client_id: string }, secret: hook.data.secret as string };
}

const grantOf = async (shop: string, appId: string) =>
  (await call(a.url, '/api/v1/merchant/developer/connections', { token: shop })).data.items.find(
    (c: { app: { id: string } }) => c.app.id === appId,
  ) as { id: string } | undefined;

beforeAll(async () => {
  database = await freshDatabase();
  [a, b] = await Promise.all([startProcess(database.url!), startProcess(database.url!)]);
  rx = await startReceiver();
}, 120_000);

afterAll(async () => {
  await stopAll();
  await rx?.close();
  await database?.drop();
});

describe('app webhooks across processes', () => {
  it("a change through A holds for B's next event: consent, allowed scopes, uninstall", async () => {
    const dev = await signup(a.url, 'Dev');
    const shop = await signup(a.url, 'Shop');
    const { app, secret } = await appWithWebhook(dev.token, '/sys-app', ['order.created']);
    expect(await ingest(b.url, shop.id)).toBe(0); // not installed yet
    await consent(shop.token, app.client_id, 'public:read');
    expect(await ingest(b.url, shop.id)).toBe(1);

    await consent(shop.token, app.client_id, 'public:write'); // narrower: no reading
    expect(await ingest(b.url, shop.id)).toBe(0);
    await consent(shop.token, app.client_id, 'public:*');
    expect(await ingest(b.url, shop.id)).toBe(1);

    const narrowed = await call(a.url, `/api/v1/merchant/developer/apps/${app.id}`, {
      method: 'PATCH',
      token: dev.token,
      body: { allowed_scopes: ['public:write'] },
    });
    expect(narrowed.status).toBe(200);
    expect(await ingest(b.url, shop.id)).toBe(0);
    await call(a.url, `/api/v1/merchant/developer/apps/${app.id}`, {
      method: 'PATCH',
      token: dev.token,
      body: { allowed_scopes: ['public:read'] },
    });
    expect(await ingest(b.url, shop.id)).toBe(1);

    const grant = await grantOf(shop.token, app.id);
    const gone = await call(a.url, `/api/v1/merchant/developer/connections/${grant!.id}`, {
      method: 'DELETE',
      token: shop.token,
    });
    expect(gone.status).toBe(204);
    expect(await ingest(b.url, shop.id)).toBe(0);

    const got = await rx.waitFor(3, 15_000, (r) => r.path === '/sys-app');
    for (const r of got) {
      const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      expect(body).toMatchObject({ merchant_id: shop.id, app_id: app.id, grant_id: grant!.id });
    }
  }, 60_000);

  it('a store.redact scheduled by a process killed before it was due is sent by one started later', async () => {
    const dev = await signup(a.url, 'Dev');
    const shop = await signup(a.url, 'Shop');
    const { app, secret } = await appWithWebhook(dev.token, '/sys-redact', ['store.redact']);
    await consent(shop.token, app.client_id, 'public:read');
    const grant = (await grantOf(shop.token, app.id))!;
    // A and B stop, so neither can record it: only the processes started below run from here.
    await stopAll();
    const short = await startProcess(database.url!, { SVC_STORE_REDACT_AFTER: '5' });
    const gone = await call(short.url, `/api/v1/merchant/developer/connections/${grant.id}`, {
      method: 'DELETE',
      token: shop.token,
    });
    expect(gone.status).toBe(204);
    short.child.kill('SIGKILL');
    await new Promise((r) => short.child.once('exit', r));
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      // Still waiting when its process died.
      const waiting = await db.query('select 1 from oauth_redactions where grant_id = $1', [grant.id]);
      expect(waiting.rowCount).toBe(1);
    } finally {
      await db.end();
    }
    // Its own setting only makes it sweep every 1.5 s; what is due, and when, was written by the dead one.
    await startProcess(database.url!, { SVC_STORE_REDACT_AFTER: '3' });
    const [r] = await rx.waitFor(1, 20_000, (x) => x.path === '/sys-redact');
    const body = new Webhook(secret).verify(r!.body, r!.headers as Record<string, string>);
    expect(body).toMatchObject({
      type: 'store.redact',
      merchant_id: shop.id,
      app_id: app.id,
      grant_id: grant.id,
    });
  }, 90_000);
});
