// Input that once answered 500, each case as it was found: text the databases cannot store (NUL bytes,
// lone surrogates, year 0), credential-shaped names and URLs, raw characters in redirect URIs and
// `return_to`, errors that Fastify raises itself, and bodiless POSTs sent with `{}` and no content type.
import { connect } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { authorizeUrl, createApp, pkce, REDIRECT, type TestApp } from '../oauth/helpers.ts';
import { systemContext, writeAudit } from '../../src/modules/audit/index.ts';
import { AppError } from '../../src/lib/errors.ts';

const INTERNAL_TOKEN = 'internal-token-for-edge-input-tests';
const AUTHORIZE = '/api/public/v1/oauth/authorize';
let svc: TestService;
let m: TestMerchant;
let client: TestApp;

beforeAll(async () => {
  svc = await startTestService({ listen: true, env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  m = await signupMerchant(svc.app, 'Edge');
  client = await createApp(svc.app, m);
}, 240_000); // a fresh embedded database takes about a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const call = (options: InjectOptions) => svc.app.inject(options);

/** Our envelope, naming the field, with the request id in the body and the header. */
function expectValidation(res: Awaited<ReturnType<typeof call>>, field: string) {
  expect([res.statusCode, res.json().error?.code]).toEqual([400, 'validation_failed']);
  expect(res.json().error.details?.[0]?.field).toBe(field);
  expect(res.headers['x-request-id']).toBe(res.json().error.request_id);
}

describe('text the databases cannot store', () => {
  it('GET /oauth/authorize?client_id=%00 shows our 400 page, never a redirect; JSON names the field', async () => {
    const page = await call({ method: 'GET', url: `${AUTHORIZE}?client_id=%00` });
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('invalid_request');
    const json = await call({
      method: 'GET',
      url: `${AUTHORIZE}?client_id=%00`,
      headers: { accept: 'application/json' },
    });
    expectValidation(json, 'client_id');
  });

  it('POST /oauth/token with client_id=svc_ca_%00 is invalid_client, in RFC form', async () => {
    const res = await call({
      method: 'POST',
      url: '/api/public/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=refresh_token&refresh_token=x&client_id=svc_ca_%00&client_secret=y',
    });
    expect([res.statusCode, res.json().error]).toEqual([401, 'invalid_client']);
    const basic = await call({
      method: 'POST',
      url: '/api/public/v1/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('svc_ca_%00:secret').toString('base64')}`,
      },
      payload: 'grant_type=refresh_token&refresh_token=x',
    });
    expect([basic.statusCode, basic.json().error]).toEqual([401, 'invalid_client']);
    const other = await call({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_id=${client.client_id}&client_secret=${client.client_secret}&token=a%00b`,
    });
    expect([other.statusCode, other.json().error]).toEqual([400, 'invalid_request']);
  });

  it('POST /auth/login with "email":"\\u0000" is 400 naming email', async () => {
    const res = await call({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: '\u0000', password: 'whatever it is' },
    });
    expectValidation(res, 'email');
  });

  it('refuses NUL in a path parameter, a query parameter and a body field', async () => {
    expectValidation(
      await call({ method: 'GET', url: '/api/v1/merchant/developer/apps/%00', headers: m.auth }),
      'appID',
    );
    expectValidation(
      await call({
        method: 'GET',
        url: '/api/v1/merchant/developer/apps?starting_after=%00',
        headers: m.auth,
      }),
      'starting_after',
    );
    expectValidation(
      await call({
        method: 'POST',
        url: '/api/v1/merchant/developer/apps',
        headers: m.auth,
        payload: { name: 'a\u0000b', redirect_uris: [REDIRECT], allowed_scopes: ['public:read'] },
      }),
      'name',
    );
  });

  it('refuses a lone surrogate at ingestion, in keys and deep values too', async () => {
    const post = (body: string) =>
      call({
        method: 'POST',
        url: '/internal/v1/events',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        payload: body,
      });
    const event = { merchant_id: m.merchantId, mode: 'test', type: 'order.created', data: { id: 'ord_1' } };
    expectValidation(await post(JSON.stringify({ ...event, merchant_id: '\ud800' })), 'merchant_id');
    expectValidation(
      await post(JSON.stringify({ ...event, data: { id: 'ord_1', lines: [{ sku: 'x\udc00' }] } })),
      'data.lines[0].sku',
    );
    expectValidation(await post(JSON.stringify({ ...event, data: { 'a\u0000': 1 } })), 'data.a\u0000');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await post(JSON.stringify({ ...event, data: { deep: 0 } }).replace('0}}', `${deep}}}`));
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'validation_failed']);
  });

  it('refuses dates outside years 0001-9999 on the logs route, and serves the edges', async () => {
    const logs = (since: string) =>
      call({
        method: 'GET',
        url: `/api/v1/merchant/developer/logs?since=${encodeURIComponent(since)}`,
        headers: m.auth,
      });
    expectValidation(await logs('0000-01-01T00:00:00Z'), 'since');
    expectValidation(await logs('0001-01-01T00:30:00+01:00'), 'since');
    expectValidation(await logs('+010000-01-01T00:00:00Z'), 'since');
    expect((await logs('0001-01-01T00:00:00Z')).statusCode).toBe(200);
    expect((await logs('9999-12-31T23:59:59.999Z')).statusCode).toBe(200);
  });
});

describe('credential-shaped input', () => {
  const secretIssue = (res: Awaited<ReturnType<typeof call>>, field: string) => {
    expectValidation(res, field);
    expect(res.json().error.message).toMatch(/secrets do not belong there/);
  };

  it('refuses an app named svc_test_sk_..., a key named whsec_... and a webhook URL with a secret key', async () => {
    secretIssue(
      await call({
        method: 'POST',
        url: '/api/v1/merchant/developer/apps',
        headers: m.auth,
        payload: {
          name: 'svc_test_sk_AAAAAAAAAA',
          redirect_uris: [REDIRECT],
          allowed_scopes: ['public:read'],
        },
      }),
      'name',
    );
    secretIssue(
      await call({
        method: 'PATCH',
        url: `/api/v1/merchant/developer/apps/${client.id}`,
        headers: m.auth,
        payload: { description: 'see svc_live_cs_ABCDEFGHIJKL' },
      }),
      'description',
    );
    secretIssue(
      await call({
        method: 'POST',
        url: '/api/v1/merchant/api-keys',
        headers: m.auth,
        payload: { name: 'whsec_AAAAAAAAAAAA' },
      }),
      'name',
    );
    secretIssue(
      await call({
        method: 'POST',
        url: '/api/v1/merchant/webhooks',
        headers: m.auth,
        payload: { url: 'http://127.0.0.1:9/svc_live_sk_ABCDEFGHIJ', events: ['order.created'] },
      }),
      'url',
    );
  });

  it('redacts a User-Agent holding svc_mst_ in the audit entry of a write, which succeeds', async () => {
    const res = await call({
      method: 'POST',
      url: '/api/v1/merchant/api-keys',
      headers: { ...m.auth, 'user-agent': 'Mozilla svc_mst_AAAAAAAAAAAA' },
      payload: { name: 'From a browser' },
    });
    expect(res.statusCode).toBe(201);
    const logs = await call({
      method: 'GET',
      url: `/api/v1/merchant/developer/logs?entity_id=${res.json().data.id}`,
      headers: m.auth,
    });
    const metadata = JSON.parse(logs.json().data.items[0].metadata as string);
    expect(metadata.user_agent).toBe('Mozilla [redacted]');
  });

  it('keeps the audit guard as the last line: a secret in an entry fails with a 400 error, not a 500', async () => {
    const attempt = svc.ctx.db.transaction().execute((trx) =>
      writeAudit(trx, systemContext(svc.ctx, m.merchantId, 'test'), {
        action: 'api_key.created',
        entityType: 'api_key',
        entityId: 'key_x',
        fields: { name: 'svc_test_sk_AAAAAAAAAA' },
      }),
    );
    const err = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
  });
});

describe('redirect URIs and return_to as text', () => {
  const create = (uri: string) =>
    call({
      method: 'POST',
      url: '/api/v1/merchant/developer/apps',
      headers: m.auth,
      payload: { name: 'Raw', redirect_uris: [REDIRECT, uri], allowed_scopes: ['public:read'] },
    });

  it('refuses raw non-ASCII, CR/LF, spaces and bad percent-escapes at creation and update', async () => {
    for (const uri of [
      'https://app.example.com/cb?x=漢',
      'https://app.example.com/cb\r\nSet-Cookie: a=b',
      'https://app.example.com/c b',
      'https://app.example.com/cb?x=%zz',
    ]) {
      expectValidation(await create(uri), 'redirect_uris[1]');
    }
    expectValidation(
      await call({
        method: 'PATCH',
        url: `/api/v1/merchant/developer/apps/${client.id}`,
        headers: m.auth,
        payload: { redirect_uris: ['https://app.example.com/cb?x=漢'] },
      }),
      'redirect_uris[0]',
    );
    expect((await create('https://app.example.com/cb?x=%E6%BC%A2')).statusCode).toBe(201);
  });

  it('writes nothing for a stored redirect URI that cannot be sent (one saved before this check)', async () => {
    const legacy = await createApp(svc.app, m, { name: 'Legacy' });
    const raw = 'https://app.example.com/cb?x=漢';
    await sql`update oauth_apps set redirect_uris = ${JSON.stringify([raw])} where id = ${legacy.id}`.execute(
      svc.ctx.db,
    );
    const { challenge } = pkce();
    const res = await call({
      method: 'GET',
      url: authorizeUrl({ ...legacy, redirect_uris: [raw] }, { code_challenge: challenge }),
      headers: m.auth,
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    const consents = await sql<{ n: number }>`
      select count(*)::int as n from oauth_consents where app_id = ${legacy.id}`.execute(svc.ctx.db);
    expect(consents.rows[0]!.n).toBe(0);
  });

  it('refuses a return_to with raw characters before checking the password, and sets no session', async () => {
    const { challenge } = pkce();
    const base = authorizeUrl(client, { code_challenge: challenge });
    for (const returnTo of [`${base}&x=漢`, `${base}&x=a\r\nb`]) {
      const res = await call({
        method: 'POST',
        url: `${AUTHORIZE}/login`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          return_to: returnTo,
          email: m.email,
          password: m.password,
        }).toString(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });
});

describe('errors Fastify raises itself', () => {
  const envelope = (res: Awaited<ReturnType<typeof call>>, status: number, code: string) => {
    expect([res.statusCode, res.json().error?.code]).toEqual([status, code]);
    expect(res.headers['x-request-id']).toBe(res.json().error.request_id);
  };

  it('answer in our envelope with X-Request-Id', async () => {
    envelope(await call({ method: 'GET', url: '/nowhere' }), 404, 'not_found');
    envelope(
      await call({ method: 'PUT', url: '/api/v1/merchant/me', headers: m.auth }),
      405,
      'method_not_allowed',
    );
    envelope(
      await call({ method: 'GET', url: '/api/v1/merchant/developer/apps/%E0%A4%A' }),
      400,
      'validation_failed',
    );
    const post = (payload: string, type?: string) =>
      call({
        method: 'POST',
        url: '/api/v1/merchant/api-keys',
        headers: { ...m.auth, ...(type ? { 'content-type': type } : {}) },
        payload,
      });
    envelope(await post('{"name":', 'application/json'), 400, 'invalid_json');
    envelope(await post('name=x', 'text/plain'), 415, 'unsupported_media_type');
    envelope(
      await post(`{"name":"${'x'.repeat(1024 * 1024)}"}`, 'application/json'),
      413,
      'payload_too_large',
    );
  });

  it('answers a header overflow in our envelope with X-Request-Id', async () => {
    const port = new URL(svc.url).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    const id = /x-request-id: (\S+)/i.exec(raw)?.[1];
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body.error.request_id).toBe(id);
  });
});

describe('bodiless POSTs sent with {} and no content type', () => {
  const bare = (url: string, auth: Record<string, string> = m.auth) =>
    call({ method: 'POST', url, headers: auth, payload: '{}' });

  it('answer as if no body was sent', async () => {
    const key = await call({
      method: 'POST',
      url: '/api/v1/merchant/api-keys',
      headers: m.auth,
      payload: {},
    });
    const revoke = await bare(`/api/v1/merchant/api-keys/${key.json().data.id}/revoke`);
    expect(revoke.headers['content-type'] ?? '').not.toMatch(/415/);
    expect(revoke.statusCode).toBe(200);
    const hook = await call({
      method: 'POST',
      url: '/api/v1/merchant/webhooks',
      headers: m.auth,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['order.created'] },
    });
    const id = hook.json().data.id as string;
    expect((await bare(`/api/v1/merchant/webhooks/${id}/disable`)).statusCode).toBe(200);
    expect((await bare(`/api/v1/merchant/webhooks/${id}/enable`)).statusCode).toBe(200);
    const other = await signupMerchant(svc.app, 'Leaving');
    expect((await bare('/api/v1/merchant/auth/logout', other.auth)).statusCode).toBe(204);
  });

  it('still answer 415 for a route with required fields, and 400 for an unknown field', async () => {
    const res = await bare('/api/v1/merchant/developer/apps');
    expect([res.statusCode, res.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const hook = await call({
      method: 'POST',
      url: '/api/v1/merchant/webhooks',
      headers: m.auth,
      payload: { url: 'http://127.0.0.1:9/other', events: ['order.created'] },
    });
    const extra = await call({
      method: 'POST',
      url: `/api/v1/merchant/webhooks/${hook.json().data.id}/disable`,
      headers: m.auth,
      payload: '{"x":1}',
    });
    expect([extra.statusCode, extra.json().error.code]).toEqual([400, 'validation_failed']);
  });
});
