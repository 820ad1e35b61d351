// RFC 8414 metadata, the audit counts of refreshes, and the purge of expired codes and tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpired } from '../../src/modules/oauth/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { TestClock } from '../support/clock.ts';
import { createApp, exchange, getCode, refresh } from './helpers.ts';

let svc: TestService;
const clock = new TestClock();
beforeAll(async () => {
  svc = await startTestService({ clock });
});
afterAll(async () => svc?.close());

describe('metadata (RFC 8414)', () => {
  it('serves the same document at both well-known paths', async () => {
    const a = await svc.app.inject({ url: '/.well-known/oauth-authorization-server' });
    const b = await svc.app.inject({ url: '/.well-known/openid-configuration' });
    expect(a.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
    const issuer = svc.config.publicUrl;
    expect(a.json()).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/api/public/v1/oauth/authorize`,
      token_endpoint: `${issuer}/api/public/v1/oauth/token`,
      revocation_endpoint: `${issuer}/api/public/v1/oauth/revoke`,
      introspection_endpoint: `${issuer}/api/public/v1/oauth/introspect`,
      introspection_endpoint_auth_methods_supported: [
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
      scopes_supported: ['public:read', 'public:write', 'public:*'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['EdDSA', 'ES256', 'RS256'],
      dpop_signing_alg_values_supported: ['EdDSA', 'ES256', 'RS256'],
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe('OpenAPI', () => {
  it('lists the OAuth routes', async () => {
    const res = await svc.app.inject({ url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const path of [
      '/api/public/v1/oauth/authorize',
      '/api/public/v1/oauth/authorize/consent',
      '/api/public/v1/oauth/token',
      '/api/public/v1/oauth/revoke',
      '/api/public/v1/oauth/introspect',
      '/api/v1/merchant/developer/apps',
      '/api/v1/merchant/developer/apps/{appID}/rotate-secret',
      '/api/v1/merchant/developer/connections',
    ]) {
      expect(paths).toContain(path);
    }
  });
});

describe('audit of refreshes', () => {
  it('counts every refresh in the log of the merchant whose data the grant opens', async () => {
    const dev = await signupMerchant(svc.app, 'Dev');
    const shop = await signupMerchant(svc.app, 'Shop');
    const app = await createApp(svc.app, dev);
    const { code, verifier } = await getCode(svc.app, app, shop);
    let rt = (await exchange(svc.app, app, code, verifier)).refresh_token;
    for (let i = 0; i < 3; i++) rt = (await refresh(svc.app, app, rt)).json().refresh_token;
    for (const filter of ['action=oauth.token_refreshed', 'action=oauth.*', 'entity_type=oauth_grant', '']) {
      const res = await svc.app.inject({
        url: `/api/v1/merchant/developer/logs?${filter}`,
        headers: shop.auth,
      });
      const { items, count } = res.json().data;
      expect(count, filter).toBe(items.length);
    }
    const res = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=oauth.token_refreshed',
      headers: shop.auth,
    });
    expect(res.json().data.count).toBe(3);
    const entry = res.json().data.items[0];
    expect(entry.entity_type).toBe('oauth_grant');
    expect(entry.entity_id).toMatch(/^grant_/);
    expect(JSON.parse(entry.metadata)).toMatchObject({ actor: { type: 'app', id: app.id } });
    // nothing in the developer's log: the entries belong to the shop
    const devLog = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=oauth.*',
      headers: dev.auth,
    });
    expect(devLog.json().data.count).toBe(0);
  });
});

describe('housekeeping', () => {
  it('purges expired codes and tokens', async () => {
    const dev = await signupMerchant(svc.app, 'Dev');
    const app = await createApp(svc.app, dev);
    const { code, verifier } = await getCode(svc.app, app, dev);
    await exchange(svc.app, app, code, verifier);
    await getCode(svc.app, app, dev);
    const count = async (table: 'oauth_tokens' | 'oauth_codes') =>
      Number(
        (
          await svc.ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('oauth_tokens')).toBeGreaterThan(0);
    expect(await sweepExpired(svc.ctx)).toBe(0); // nothing has expired yet
    // A refresh token's lifetime later every token has expired, and the used code's reuse window with it.
    clock.advance((svc.config.oauth.refreshTokenTtl + 3600) * 1000);
    expect(await sweepExpired(svc.ctx)).toBeGreaterThan(0);
    expect(await count('oauth_tokens')).toBe(0);
    expect(await count('oauth_codes')).toBe(0);
  });
});
