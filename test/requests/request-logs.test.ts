// Request logs (API.md section 11.6) on a real database: what each credential kind's call records, the error
// body of an error, the filters and the cursor, what the detail links, and the retention purge. The
// recorder's buffer is flushed by hand where a test reads at once; test/system/request-log-crash.test.ts
// covers the flush on its own and what a crash loses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import { basic, createApp, exchange, getCode, tokenCall, type TestApp } from '../oauth/helpers.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import type { Requests } from '../../src/modules/requests/index.ts';

const INTERNAL_TOKEN = 'request-log-internal-token';
let now = Date.parse('2026-11-27T10:00:00.000Z');
const clock = { now: () => now };

let svc: TestService;
let m: TestMerchant;
let key: TestKey;
let client: TestApp;

const recorder = () => (svc.modules.find((x) => x.name === 'requests') as Requests).batch;
const flush = () => recorder().flush();

function requests(query = '', merchant = m, mode = 'test') {
  return svc.app.inject({
    url: `/api/v1/merchant/developer/requests${query}`,
    headers: { ...merchant.auth, 'x-svc-mode': mode },
  });
}

async function detail(id: string, merchant = m, mode = 'test') {
  return svc.app.inject({
    url: `/api/v1/merchant/developer/requests/${id}`,
    headers: { ...merchant.auth, 'x-svc-mode': mode },
  });
}

function call(method: 'GET' | 'POST', url: string, token: string, headers: Record<string, string> = {}) {
  return svc.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers } });
}

beforeAll(async () => {
  // Sessions outlive the retention test's clock, moved eight days on (their own expiry is tested elsewhere).
  svc = await startTestService({
    clock,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_SESSION_TTL: String(30 * 86_400) },
  });
  m = await signupMerchant(svc.app, 'Logged merchant');
  key = await createKey(svc.app, m);
  client = await createApp(svc.app, m);
});
afterAll(async () => svc?.close());

describe('what a call records', () => {
  it('a secret key call: every field, the key id and its last four characters, never the key', async () => {
    now += 1000;
    const res = await call('POST', `/api/public/v1/stores/${m.storeId}/cart?expand=items`, key.secret_key, {
      'x-request-id': 'req_secret_key_call',
      'user-agent': 'shop-backend/1.0',
      'idempotency-key': 'cart-1',
    });
    expect(res.statusCode).toBe(201);
    const replay = await call(
      'POST',
      `/api/public/v1/stores/${m.storeId}/cart?expand=items`,
      key.secret_key,
      {
        'x-request-id': 'req_secret_key_replay',
        'idempotency-key': 'cart-1',
      },
    );
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await flush();

    const entry = (await detail('req_secret_key_call')).json().data;
    expect(entry).toMatchObject({
      id: 'req_secret_key_call',
      mode: 'test',
      method: 'POST',
      path: `/api/public/v1/stores/${m.storeId}/cart`,
      route: '/api/public/v1/stores/{storeID}/cart',
      status: 201,
      error_code: null,
      credential: { type: 'secret_key', id: key.id, last4: key.secret_key.slice(-4) },
      ip: '127.0.0.1',
      user_agent: 'shop-backend/1.0',
      idempotency_key: 'cart-1',
      idempotent_replayed: false,
      error: null,
      audit_entries: [],
      deliveries: [],
    });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    // When the call arrived, by the service's clock: the clock's time less the call's duration.
    expect(Date.parse(entry.created_at)).toBeGreaterThan(now - 1000);
    expect(Date.parse(entry.created_at)).toBeLessThanOrEqual(now);
    expect((await detail('req_secret_key_replay')).json().data.idempotent_replayed).toBe(true);
    const list = await requests();
    expect(JSON.stringify(list.json())).not.toContain(key.secret_key);
  });

  it('a publishable key call, an access token call and a client-secret call', async () => {
    const read = await call('GET', '/api/public/v1/stores', key.publishable_key, {
      'x-request-id': 'req_publishable_call',
    });
    expect(read.statusCode).toBe(200);
    const { code, verifier } = await getCode(svc.app, client, m);
    const tokens = await exchange(svc.app, client, code, verifier);
    expect(
      (await call('GET', '/api/public/v1/stores', tokens.access_token, { 'x-request-id': 'req_token_call' }))
        .statusCode,
    ).toBe(200);
    const revoke = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { ...basic(client), 'x-request-id': 'req_revoke_call' },
      payload: { token: tokens.refresh_token },
    });
    expect(revoke.statusCode).toBe(200);
    await flush();

    expect((await detail('req_publishable_call')).json().data.credential).toEqual({
      type: 'publishable_key',
      id: key.id,
      last4: key.publishable_key.slice(-4),
    });
    expect((await detail('req_token_call')).json().data.credential).toEqual({
      type: 'access_token',
      id: client.id,
      last4: tokens.access_token.slice(-4),
    });
    const revoked = (await detail('req_revoke_call')).json().data;
    expect(revoked).toMatchObject({
      route: '/api/public/v1/oauth/revoke',
      status: 200,
      credential: { type: 'client_secret', id: client.id, last4: client.client_secret.slice(-4) },
    });
    const text = (await requests('?limit=200')).body;
    for (const secret of [tokens.access_token, tokens.refresh_token, client.client_secret, code])
      expect(text).not.toContain(secret);
  });

  it('keeps the error body of an error, and records a call refused after its credential verified', async () => {
    const refused = await call('POST', `/api/public/v1/stores/${m.storeId}/cart`, key.publishable_key, {
      'x-request-id': 'req_refused_write',
    });
    expect(refused.statusCode).toBe(403);
    const missing = await call('POST', '/api/public/v1/stores/store_nope/cart', key.secret_key, {
      'x-request-id': 'req_missing_store',
    });
    expect(missing.statusCode).toBe(404);
    const badGrant = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: 'svc_ort_nope' },
      {
        ...basic(client),
        'x-request-id': 'req_bad_grant',
      },
    );
    expect(badGrant.statusCode).toBe(400);
    await flush();

    const entry = (await detail('req_refused_write')).json().data;
    expect(entry).toMatchObject({ status: 403, error_code: 'insufficient_scope' });
    expect(entry.error).toEqual(refused.json());
    expect((await detail('req_missing_store')).json().data.error).toEqual(missing.json());
    expect((await detail('req_bad_grant')).json().data).toMatchObject({
      error_code: 'invalid_grant',
      error: badGrant.json(),
      credential: { type: 'client_secret', id: client.id },
    });
  });

  it('records nothing for a credential that names no merchant', async () => {
    const unknown = await call('GET', '/api/public/v1/stores', 'svc_test_sk_nope', {
      'x-request-id': 'req_no_credential_known',
    });
    expect(unknown.statusCode).toBe(401);
    const wrongSecret = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: 'svc_ort_nope' },
      {
        ...basic({ ...client, client_secret: `${client.client_secret.slice(0, -4)}AAAA` }),
        'x-request-id': 'req_wrong_secret',
      },
    );
    expect(wrongSecret.statusCode).toBe(401);
    await flush();
    expect((await detail('req_no_credential_known')).statusCode).toBe(404);
    expect((await detail('req_wrong_secret')).statusCode).toBe(404);
  });

  it('answers the newest of two calls that carried the same request id', async () => {
    now += 1000;
    await call('GET', '/api/public/v1/stores', key.secret_key, { 'x-request-id': 'req_sent_twice' });
    now += 1000;
    await call('POST', '/api/public/v1/stores/store_nope/cart', key.secret_key, {
      'x-request-id': 'req_sent_twice',
    });
    await flush();
    expect((await detail('req_sent_twice')).json().data).toMatchObject({ method: 'POST', status: 404 });
    const both = (await requests('?limit=200'))
      .json()
      .data.items.filter((e: { id: string }) => e.id === 'req_sent_twice');
    expect(both.map((e: { status: number }) => e.status)).toEqual([404, 200]);
  });

  it('keeps text as sent: tabs, line breaks, backslashes, a literal \\N and characters beyond ASCII', async () => {
    now += 1000;
    const odd = 'a\tb\nc\rd \\ e \\N f é 漢字 🙂';
    const error = JSON.stringify({ error: { code: 'not_found', message: odd } });
    const offered = recorder().offer({
      createdAt: now,
      merchantId: m.merchantId,
      mode: 'test',
      requestId: 'req_odd_text',
      method: 'GET',
      path: `/api/public/v1/stores/${odd}`,
      route: null,
      status: 404,
      durationMs: 1.5,
      credentialType: 'secret_key',
      credentialId: key.id,
      credentialLast4: key.secret_key.slice(-4),
      ip: null,
      userAgent: odd,
      idempotencyKey: '\\N',
      replayed: false,
      error,
      appId: null,
      storeId: null,
      forOwner: false,
    });
    expect(offered).toBe(true);
    await flush();
    expect((await detail('req_odd_text')).json().data).toMatchObject({
      created_at: new Date(now).toISOString(),
      path: `/api/public/v1/stores/${odd}`,
      route: null,
      status: 404,
      error_code: 'not_found',
      duration_ms: 1.5,
      ip: null,
      user_agent: odd,
      idempotency_key: '\\N',
      idempotent_replayed: false,
      error: { error: { code: 'not_found', message: odd } },
    });
  });

  it("records a call for its credential's merchant and mode, and no one else sees it", async () => {
    const other = await signupMerchant(svc.app, 'Other merchant');
    const live = await createKey(svc.app, m, { mode: 'live' });
    await call('GET', '/api/public/v1/stores', live.secret_key, { 'x-request-id': 'req_live_call' });
    await flush();
    expect((await detail('req_live_call', m, 'live')).statusCode).toBe(200);
    expect((await detail('req_live_call', m, 'test')).json().error.code).toBe('not_found');
    expect((await detail('req_live_call', other, 'live')).json().error.code).toBe('not_found');
    expect((await requests('', other, 'live')).json().data.count).toBe(0);
  });
});

describe('reading the log', () => {
  let reader: TestMerchant;
  let readerKey: TestKey;
  let listStart: number;

  beforeAll(async () => {
    reader = await signupMerchant(svc.app, 'Reader');
    readerKey = await createKey(svc.app, reader);
    const at = (listStart = now);
    // Twelve calls a second apart: GETs that succeed, and every third a write refused for its store.
    for (let i = 0; i < 12; i++) {
      now = at + (i + 1) * 1000;
      const id = `req_list_${String(i).padStart(2, '0')}`;
      if (i % 3 === 2) {
        await call('POST', '/api/public/v1/stores/store_nope/cart', readerKey.secret_key, {
          'x-request-id': id,
        });
      } else {
        await call('GET', '/api/public/v1/payments/supported-countries', readerKey.publishable_key, {
          'x-request-id': id,
        });
      }
    }
    await flush();
  });

  it('lists newest first, and pages with the cursor', async () => {
    const first = await requests('?limit=5', reader);
    expect(first.json().data).toMatchObject({ count: 12, has_more: true, next_cursor: 'req_list_07' });
    expect(ids(first)).toEqual(['req_list_11', 'req_list_10', 'req_list_09', 'req_list_08', 'req_list_07']);
    const second = await requests('?limit=5&starting_after=req_list_07', reader);
    expect(ids(second)).toEqual(['req_list_06', 'req_list_05', 'req_list_04', 'req_list_03', 'req_list_02']);
    const last = await requests('?limit=5&starting_after=req_list_02', reader);
    expect(last.json().data).toMatchObject({ has_more: false, next_cursor: null });
    expect(ids(last)).toEqual(['req_list_01', 'req_list_00']);
    const unknown = await requests('?starting_after=req_never_seen', reader);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details[0].field).toBe('starting_after');
  });

  it('filters by status, error code, method, path, credential and time, and counts what matches', async () => {
    const check = async (query: string, expected: string[]) => {
      const res = await requests(query, reader);
      expect([query, res.statusCode, ids(res), res.json().data.count]).toEqual([
        query,
        200,
        expected,
        expected.length,
      ]);
    };
    const refused = ['req_list_11', 'req_list_08', 'req_list_05', 'req_list_02'];
    const served = ids(await requests('?limit=200', reader)).filter((id) => !refused.includes(id));
    await check('?status=4xx', refused);
    await check('?status=404', refused);
    await check('?status=2xx', served);
    await check('?error_code=not_found', refused);
    await check('?method=post', refused);
    await check('?method=GET', served);
    await check('?path=/api/public/v1/stores/', refused);
    await check(`?credential_id=${readerKey.id}`, [...served, ...refused].sort().reverse());
    await check(`?status=4xx&method=POST`, refused);
    const at = (seconds: number) => encodeURIComponent(new Date(listStart + seconds * 1000).toISOString());
    await check(`?since=${at(2.5)}&until=${at(5.5)}`, ['req_list_04', 'req_list_03', 'req_list_02']);
    await check(`?since=${at(11.5)}&status=2xx`, []);
    await check(`?since=${at(11.5)}`, ['req_list_11']);
  });

  it('refuses malformed filters with the field named', async () => {
    for (const query of ['?status=6xx', '?status=abc', '?method=G%20T', '?since=yesterday', '?limit=500']) {
      const res = await requests(query, reader);
      expect([query, res.statusCode, res.json().error.code]).toEqual([query, 400, 'validation_failed']);
    }
    expect((await detail('not%20an%20id', reader)).statusCode).toBe(400);
  });
});

describe('what a request caused', () => {
  it('the detail links the audit entry the request wrote and the delivery of the event it recorded', async () => {
    const hook = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/webhooks',
      headers: m.auth,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['order.created'] },
    });
    expect(hook.statusCode).toBe(201);
    // The audit entry and the event are found by their time as well: the service's clock runs as the
    // system's here, which is what the code that writes them may still read.
    now = Date.now();
    // The app installed on its own merchant's store: the exchange writes oauth.token_issued to that log.
    const { code, verifier } = await getCode(svc.app, client, m);
    const exchanged = await tokenCall(
      svc.app,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirect_uris[0]!,
        code_verifier: verifier,
      },
      { ...basic(client), 'x-request-id': 'req_caused_things' },
    );
    expect(exchanged.statusCode).toBe(200);
    // The platform, acting on that call, records an event with the call's request id.
    const ingested = await svc.app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'x-request-id': 'req_caused_things' },
      payload: {
        merchant_id: m.merchantId,
        mode: 'test',
        type: 'order.created',
        data: sampleData('order.created'),
      },
    });
    expect(ingested.statusCode).toBe(202);
    // A call of the same moment that caused nothing.
    await call('POST', `/api/public/v1/stores/${m.storeId}/cart`, key.secret_key, {
      'x-request-id': 'req_caused_nothing',
    });
    await flush();

    const entry = (await detail('req_caused_things')).json().data;
    expect(entry.audit_entries.map((a: { action: string }) => a.action)).toEqual(['oauth.token_issued']);
    expect(JSON.parse(entry.audit_entries[0].metadata).request_id).toBe('req_caused_things');
    expect(entry.deliveries).toHaveLength(1);
    expect(entry.deliveries[0]).toMatchObject({
      webhook_id: hook.json().data.id,
      event_id: ingested.json().data.id,
      event_type: 'order.created',
      status: 'pending',
    });
    // Another call's detail links neither.
    expect((await detail('req_secret_key_call')).json().data).toMatchObject({
      audit_entries: [],
      deliveries: [],
    });
  });
});

describe('retention', () => {
  it('drops a day once all of it is older than the retention period, and nothing younger', async () => {
    const keeper = await signupMerchant(svc.app, 'Keeper');
    const keeperKey = await createKey(svc.app, keeper);
    const day = Date.parse('2026-12-01T23:00:00.000Z');
    now = day;
    await call('GET', '/api/public/v1/stores', keeperKey.secret_key, { 'x-request-id': 'req_old_day' });
    now = day + 2 * 3_600_000; // 01:00 the next day
    await call('GET', '/api/public/v1/stores', keeperKey.secret_key, { 'x-request-id': 'req_next_day' });
    await flush();
    expect((await requests('', keeper)).json().data.count).toBe(2);

    const { keepDays } = await import('../../src/modules/requests/index.ts');
    // Seven days after the first call's day ended, less a minute: both kept.
    now = Date.parse('2026-12-09T00:00:00.000Z') - 60_000;
    expect(await keepDays(svc.ctx)).toEqual(expect.not.arrayContaining(['2026-12-01']));
    expect((await requests('', keeper)).json().data.count).toBe(2);
    // Seven whole days after it: its day goes, entries and count alike; the next day stays.
    now = Date.parse('2026-12-09T00:00:00.000Z');
    expect(await keepDays(svc.ctx)).toContain('2026-12-01');
    const left = await requests('', keeper);
    expect(left.json().data.count).toBe(1);
    expect(ids(left)).toEqual(['req_next_day']);
    expect((await detail('req_old_day', keeper)).statusCode).toBe(404);
  });
});

function ids(res: { json(): { data: { items: { id: string }[] } } }): string[] {
  return res.json().data.items.map((e) => e.id);
}
