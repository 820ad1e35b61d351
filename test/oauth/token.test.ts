// The token endpoint's rules (RFC 6749 4.1.3, 5.2, 6; RFC 7636 4.6; RFC 9700 4.14) and every error code.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { TestClock } from '../support/clock.ts';
import { eventually } from '../support/eventually.ts';
import {
  basic,
  createApp,
  exchange,
  getCode,
  readWith,
  refresh,
  tokenCall,
  type TestApp,
} from './helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let client: TestApp;
let other: TestApp;
const clock = new TestClock();

beforeAll(async () => {
  svc = await startTestService({ clock });
  dev = await signupMerchant(svc.app, 'Dev Co');
  shop = await signupMerchant(svc.app, 'Shop');
  client = await createApp(svc.app, dev);
  other = await createApp(svc.app, dev, { name: 'Other app' });
});
afterAll(async () => svc?.close());

function expectError(res: { statusCode: number; json(): unknown }, status: number, error: string) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toMatchObject({ error, error_description: expect.any(String) });
}

async function auditActions(merchant: TestMerchant, action: string) {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/developer/logs?action=${action}`,
    headers: merchant.auth,
  });
  return res.json().data.items as { entity_id: string; metadata: string }[];
}

describe('authorization_code', () => {
  it('issues tokens in RFC form, not cached, with Basic or with the secret in the body', async () => {
    const a = await getCode(svc.app, client, shop);
    const res = await tokenCall(
      svc.app,
      {
        grant_type: 'authorization_code',
        code: a.code,
        redirect_uri: client.redirect_uris[0]!,
        code_verifier: a.verifier,
        unknown_param: 'ignored',
      },
      basic(client),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.stringMatching(/^svc_oat_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_ort_/),
      scope: 'public:*',
      merchant_id: shop.merchantId,
      store_id: shop.storeId,
      mode: 'test',
    });
    expect(a.redirectTo.searchParams.get('state')).toBe('st-123');
    expect(a.redirectTo.searchParams.get('iss')).toBe(svc.config.publicUrl);
    expect(a.code).toMatch(/^svc_oac_/);

    // The seed's JSON body with client_secret_post.
    const b = await getCode(svc.app, client, shop);
    const json = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/token',
      payload: {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        client_secret: client.client_secret,
        code: b.code,
        redirect_uri: client.redirect_uris[0],
        code_verifier: b.verifier,
      },
    });
    expect(json.statusCode).toBe(200);
    expect(await readWith(svc.app, json.json().access_token)).toBe(200);
    const issued = await auditActions(shop, 'oauth.token_issued');
    expect(issued.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(issued[0]!.metadata).actor).toEqual({ type: 'app', id: client.id });
  });

  it("answers and audits the scope it issued: the code's, or what a later consent or the app left of it", async () => {
    const owner = await signupMerchant(svc.app, 'Shop audited');
    const app = await createApp(svc.app, dev, { name: 'Audited app' });
    const whole = await getCode(svc.app, app, owner);
    expect((await exchange(svc.app, app, whole.code, whole.verifier)).scope).toBe('public:*');
    // a narrower consent since the code was approved: the grant now holds public:read
    const early = await getCode(svc.app, app, owner);
    await getCode(svc.app, app, owner, { scope: 'public:read' });
    expect((await exchange(svc.app, app, early.code, early.verifier)).scope).toBe('public:read');
    // the app narrowed since: it now allows public:write only
    const later = await getCode(svc.app, app, owner, { scope: 'public:*' });
    const patch = await svc.app.inject({
      method: 'PATCH',
      url: `/api/v1/merchant/developer/apps/${app.id}`,
      headers: dev.auth,
      payload: { allowed_scopes: ['public:write'] },
    });
    expect(patch.statusCode).toBe(200);
    expect((await exchange(svc.app, app, later.code, later.verifier)).scope).toBe('public:write');
    const entries = await auditActions(owner, 'oauth.token_issued');
    expect(entries.map((e) => JSON.parse(e.metadata).scope)).toEqual([
      'public:write',
      'public:read',
      'public:*',
    ]);
    for (const { metadata } of entries) {
      // as prepareAudit writes an entry: JSON.stringify's text, its fields in order, the scope last
      expect(JSON.stringify(JSON.parse(metadata))).toBe(metadata);
      expect(Object.keys(JSON.parse(metadata))).toEqual([
        'actor',
        'ip',
        'user_agent',
        'request_id',
        'app_id',
        'client_id',
        'grant_type',
        'scope',
      ]);
    }
  });

  it('refuses a second use with invalid_grant and revokes what the first use issued', async () => {
    const a = await getCode(svc.app, client, shop);
    const tokens = await exchange(svc.app, client, a.code, a.verifier);
    expect(await readWith(svc.app, tokens.access_token)).toBe(200);
    const again = await tokenCall(
      svc.app,
      { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT(), code_verifier: a.verifier },
      basic(client),
    );
    expectError(again, 400, 'invalid_grant');
    expect(await readWith(svc.app, tokens.access_token)).toBe(401);
    expectError(await refresh(svc.app, client, tokens.refresh_token), 400, 'invalid_grant');
    expect((await auditActions(shop, 'oauth.code_reuse_detected')).length).toBe(1);
  });

  it('gives one of two concurrent uses of a code its tokens, and revokes them for the other', async () => {
    const a = await getCode(svc.app, client, shop);
    const body = {
      grant_type: 'authorization_code',
      code: a.code,
      redirect_uri: REDIRECT(),
      code_verifier: a.verifier,
    };
    const reusesBefore = (await auditActions(shop, 'oauth.code_reuse_detected')).length;
    const answers = await Promise.all([
      tokenCall(svc.app, body, basic(client)),
      tokenCall(svc.app, body, basic(client)),
    ]);
    const won = answers.filter((r) => r.statusCode === 200);
    expect(won).toHaveLength(1);
    expectError(
      answers.find((r) => r.statusCode !== 200)!,
      400,
      'invalid_grant',
    );
    // The second use is reuse, whichever came second: what the first issued is revoked, and logged once.
    expect(await readWith(svc.app, won[0]!.json().access_token)).toBe(401);
    expect((await auditActions(shop, 'oauth.code_reuse_detected')).length).toBe(reusesBefore + 1);
  });

  it('binds the code to the client, the redirect URI and the PKCE challenge', async () => {
    const a = await getCode(svc.app, client, shop);
    const base = { grant_type: 'authorization_code', code: a.code, code_verifier: a.verifier };
    // another client: invalid_grant, and the code is not burnt
    expectError(
      await tokenCall(svc.app, { ...base, redirect_uri: REDIRECT() }, basic(other)),
      400,
      'invalid_grant',
    );
    expectError(
      await tokenCall(svc.app, { ...base, redirect_uri: `${REDIRECT()}/` }, basic(client)),
      400,
      'invalid_grant',
    );
    expectError(
      await tokenCall(
        svc.app,
        { ...base, redirect_uri: REDIRECT(), code_verifier: 'x'.repeat(43) },
        basic(client),
      ),
      400,
      'invalid_grant',
    );
    const noVerifier = { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT() };
    expectError(await tokenCall(svc.app, noVerifier, basic(client)), 400, 'invalid_grant');
    // the right request still works after all those failures
    const ok = await tokenCall(svc.app, { ...base, redirect_uri: REDIRECT() }, basic(client));
    expect(ok.statusCode).toBe(200);
  });

  it('lets a code live codeTtl seconds only', async () => {
    const short = await startTestService({ shareWith: svc, env: { SVC_OAUTH_CODE_TTL: '1' }, clock });
    try {
      const a = await getCode(short.app, client, shop);
      const b = await getCode(short.app, client, shop);
      const exchangeOf = (code: { code: string; verifier: string }) =>
        tokenCall(
          short.app,
          {
            grant_type: 'authorization_code',
            code: code.code,
            redirect_uri: REDIRECT(),
            code_verifier: code.verifier,
          },
          basic(client),
        );
      clock.advance(999);
      expect((await exchangeOf(a)).statusCode).toBe(200);
      clock.advance(1);
      expectError(await exchangeOf(b), 400, 'invalid_grant');
    } finally {
      await short.close();
    }
  });
});

function REDIRECT() {
  return client.redirect_uris[0]!;
}

describe('errors of the token endpoint', () => {
  it('invalid_request: no grant_type, a repeated parameter, a missing code, both auth methods', async () => {
    expectError(await tokenCall(svc.app, {}, basic(client)), 400, 'invalid_request');
    const repeated = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(client) },
      payload: 'grant_type=refresh_token&grant_type=authorization_code',
    });
    expectError(repeated, 400, 'invalid_request');
    expectError(
      await tokenCall(svc.app, { grant_type: 'authorization_code', redirect_uri: REDIRECT() }, basic(client)),
      400,
      'invalid_request',
    );
    expectError(
      await tokenCall(
        svc.app,
        { grant_type: 'refresh_token', refresh_token: 'x', client_secret: client.client_secret },
        basic(client),
      ),
      400,
      'invalid_request',
    );
    const xml = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/token',
      headers: { 'content-type': 'text/xml', ...basic(client) },
      payload: '<x/>',
    });
    expectError(xml, 400, 'invalid_request');
  });

  it('invalid_client: 401, with WWW-Authenticate when Basic was used', async () => {
    const wrong = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: 'x' },
      basic({ client_id: client.client_id, client_secret: other.client_secret }),
    );
    expectError(wrong, 401, 'invalid_client');
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic realm=/);
    const unknown = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: 'x' },
      basic({ client_id: 'svc_ca_nope', client_secret: client.client_secret }),
    );
    expectError(unknown, 401, 'invalid_client');
    expect(unknown.headers['www-authenticate']).toMatch(/^Basic/);
    const post = await tokenCall(svc.app, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: client.client_id,
      client_secret: other.client_secret,
    });
    expectError(post, 401, 'invalid_client');
    expectError(
      await tokenCall(svc.app, { grant_type: 'refresh_token', refresh_token: 'x' }),
      401,
      'invalid_client',
    );
    expectError(
      await tokenCall(svc.app, {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: client.client_id,
      }),
      401,
      'invalid_client',
    );
  });

  it('invalid_grant: an unknown code or refresh token', async () => {
    const code = await tokenCall(
      svc.app,
      {
        grant_type: 'authorization_code',
        code: 'svc_oac_nope',
        redirect_uri: REDIRECT(),
        code_verifier: 'v',
      },
      basic(client),
    );
    expectError(code, 400, 'invalid_grant');
    expectError(await refresh(svc.app, client, 'svc_ort_nope'), 400, 'invalid_grant');
  });

  it('unauthorized_client: a test-mode client asking for live tokens', async () => {
    const a = await getCode(svc.app, client, shop);
    const res = await tokenCall(
      svc.app,
      { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT(), code_verifier: a.verifier },
      { ...basic(client), 'x-svc-mode': 'live' },
    );
    expectError(res, 400, 'unauthorized_client');
  });

  it('unsupported_grant_type and invalid_scope', async () => {
    expectError(
      await tokenCall(svc.app, { grant_type: 'password', username: 'a', password: 'b' }, basic(client)),
      400,
      'unsupported_grant_type',
    );
    expectError(
      await tokenCall(
        svc.app,
        { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'x' },
        basic(client),
      ),
      400,
      'unsupported_grant_type',
    );
    // checked before client authentication: the answer is the same without credentials
    expectError(await tokenCall(svc.app, { grant_type: 'implicit' }), 400, 'unsupported_grant_type');
    const a = await getCode(svc.app, client, shop, { scope: 'public:read' });
    const tokens = await exchange(svc.app, client, a.code, a.verifier);
    const wider = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'public:write' },
      basic(client),
    );
    expectError(wider, 400, 'invalid_scope');
    const unknown = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'admin' },
      basic(client),
    );
    expectError(unknown, 400, 'invalid_scope');
  });
});

describe('refresh_token', () => {
  it('rotates on each use and may narrow the scope', async () => {
    const a = await getCode(svc.app, client, shop);
    const first = await exchange(svc.app, client, a.code, a.verifier);
    const r1 = await refresh(svc.app, client, first.refresh_token);
    expect(r1.statusCode).toBe(200);
    expect(r1.headers['cache-control']).toBe('no-store');
    const second = r1.json();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe('public:*');
    const narrowed = await tokenCall(
      svc.app,
      { grant_type: 'refresh_token', refresh_token: second.refresh_token, scope: 'public:read' },
      basic(client),
    );
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().scope).toBe('public:read');
    const write = await svc.app.inject({
      method: 'POST',
      url: `/api/public/v1/stores/${shop.storeId}/cart`,
      headers: { authorization: `Bearer ${narrowed.json().access_token}` },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.code).toBe('insufficient_scope');
    // the refresh token keeps what was granted
    const back = await refresh(svc.app, client, narrowed.json().refresh_token);
    expect(back.json().scope).toBe('public:*');
    expect((await auditActions(shop, 'oauth.token_refreshed')).length).toBeGreaterThanOrEqual(3);
  });

  it('within the grace period gives a sibling pair, and the pair issued before it stays valid', async () => {
    // The cases of siblings (lost response, race, attacker) are in refresh-siblings.test.ts.
    const a = await getCode(svc.app, client, shop);
    const first = await exchange(svc.app, client, a.code, a.verifier);
    const lost = (await refresh(svc.app, client, first.refresh_token)).json();
    const retry = await refresh(svc.app, client, first.refresh_token);
    expect(retry.statusCode).toBe(200);
    const fresh = retry.json();
    expect(await readWith(svc.app, lost.access_token)).toBe(200);
    expect(await readWith(svc.app, fresh.access_token)).toBe(200);
    const next = await refresh(svc.app, client, fresh.refresh_token);
    expect(next.statusCode).toBe(200);
    expect(await readWith(svc.app, lost.access_token)).toBe(401);
  });

  /** Statements the refresh fast path sent, and the refreshes they carried (the svc_batch_size histogram). */
  async function refreshBatches() {
    const metric = await svc.ctx.metrics.registry.getSingleMetric('svc_batch_size')!.get();
    const values = metric.values as { metricName?: string; labels: { batch?: string }; value: number }[];
    const of = (name: string) =>
      values.find((v) => v.metricName === name && v.labels.batch === 'refresh')?.value ?? 0;
    return { statements: of('svc_batch_size_count'), refreshes: of('svc_batch_size_sum') };
  }

  /**
   * Locks oauth_tokens against writes until `release`, which first waits for a refresh statement to be
   * blocked on the lock: the refreshes that arrive meanwhile queue in the batcher behind it.
   */
  async function holdTokens() {
    const { statements } = await refreshBatches();
    let locked!: () => void;
    let unlock!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const unlocked = new Promise<void>((r) => (unlock = r));
    const transaction = svc.ctx.db.transaction().execute(async (trx) => {
      await sql`lock table oauth_tokens in exclusive mode`.execute(trx);
      locked();
      await unlocked;
    });
    await isLocked;
    return {
      async release() {
        await eventually(async () => (await refreshBatches()).statements > statements, {
          what: 'a refresh statement blocked on the locked table',
        });
        unlock();
        await transaction;
      },
    };
  }

  it('many concurrent refreshes (batched into shared statements) each rotate their own chain', async () => {
    const before = await refreshBatches();
    const chains = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const a = await getCode(svc.app, client, shop);
        return (await exchange(svc.app, client, a.code, a.verifier)).refresh_token;
      }),
    );
    let current = chains;
    for (let round = 0; round < 3; round++) {
      // The first round's refreshes arrive while the tokens table is locked, so they queue and share
      // statements on either database (PGlite runs one statement at a time and would rarely queue any).
      const held = round === 0 ? await holdTokens() : undefined;
      const sent = Promise.all(current.map((rt) => refresh(svc.app, client, rt)));
      await held?.release();
      const answers = await sent;
      expect(answers.map((r) => r.statusCode)).toEqual(current.map(() => 200));
      current = answers.map((r) => r.json().refresh_token as string);
      const reads = await Promise.all(answers.map((r) => readWith(svc.app, r.json().access_token)));
      expect(reads).toEqual(current.map(() => 200));
    }
    expect(new Set(current).size).toBe(12);
    // Every refresh went through the fast path, and some shared a statement.
    const after = await refreshBatches();
    expect(after.refreshes - before.refreshes).toBe(36);
    expect(after.statements - before.statements).toBeLessThan(36);
  });

  it('reuse of a token whose successor was already used fails and revokes the whole family', async () => {
    const a = await getCode(svc.app, client, shop);
    const first = await exchange(svc.app, client, a.code, a.verifier);
    const second = (await refresh(svc.app, client, first.refresh_token)).json();
    const third = (await refresh(svc.app, client, second.refresh_token)).json();
    const fourth = (await refresh(svc.app, client, third.refresh_token)).json();
    expectError(await refresh(svc.app, client, second.refresh_token), 400, 'invalid_grant');
    expect(await readWith(svc.app, fourth.access_token)).toBe(401);
    expect(await readWith(svc.app, first.access_token)).toBe(401);
    expectError(await refresh(svc.app, client, fourth.refresh_token), 400, 'invalid_grant');
    const reuse = await auditActions(shop, 'oauth.refresh_reuse_detected');
    expect(reuse.length).toBeGreaterThanOrEqual(1);
  });

  it('reuse later than the 60 s grace fails and revokes the whole family', async () => {
    const a = await getCode(svc.app, client, shop);
    const first = await exchange(svc.app, client, a.code, a.verifier);
    const second = (await refresh(svc.app, client, first.refresh_token)).json();
    // Past the grace period: a minute on the service's clock.
    clock.advance(60_001);
    expectError(await refresh(svc.app, client, first.refresh_token), 400, 'invalid_grant');
    expect(await readWith(svc.app, second.access_token)).toBe(401);
    expectError(await refresh(svc.app, client, second.refresh_token), 400, 'invalid_grant');
  });

  it("refuses another client's refresh token without revoking it", async () => {
    const a = await getCode(svc.app, client, shop);
    const first = await exchange(svc.app, client, a.code, a.verifier);
    expectError(await refresh(svc.app, other, first.refresh_token), 400, 'invalid_grant');
    expect(await readWith(svc.app, first.access_token)).toBe(200);
    expect((await refresh(svc.app, client, first.refresh_token)).statusCode).toBe(200);
  });
});

describe('revocation (RFC 7009)', () => {
  async function revoke(app: TestApp, token: string, hint?: string) {
    return svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(app) },
      payload: new URLSearchParams({ token, ...(hint ? { token_type_hint: hint } : {}) }).toString(),
    });
  }

  it('revokes an access token, and a refresh token with its family', async () => {
    const a = await getCode(svc.app, client, shop);
    const t = await exchange(svc.app, client, a.code, a.verifier);
    expect((await revoke(client, t.access_token, 'access_token')).statusCode).toBe(200);
    expect(await readWith(svc.app, t.access_token)).toBe(401);
    expect((await refresh(svc.app, client, t.refresh_token)).statusCode).toBe(200);

    const b = await getCode(svc.app, client, shop);
    const u = await exchange(svc.app, client, b.code, b.verifier);
    expect((await revoke(client, u.refresh_token)).statusCode).toBe(200);
    expect(await readWith(svc.app, u.access_token)).toBe(401);
    expectError(await refresh(svc.app, client, u.refresh_token), 400, 'invalid_grant');
    expect((await auditActions(shop, 'oauth.token_revoked')).length).toBe(2);
  });

  it("answers 200 for unknown tokens and another client's, revoking nothing", async () => {
    const a = await getCode(svc.app, client, shop);
    const t = await exchange(svc.app, client, a.code, a.verifier);
    expect((await revoke(client, 'garbage')).statusCode).toBe(200);
    expect((await revoke(other, t.access_token)).statusCode).toBe(200);
    expect(await readWith(svc.app, t.access_token)).toBe(200);
    const noAuth = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${t.access_token}`,
    });
    expectError(noAuth, 401, 'invalid_client');
    const missing = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(client) },
      payload: '',
    });
    expectError(missing, 400, 'invalid_request');
  });
});
