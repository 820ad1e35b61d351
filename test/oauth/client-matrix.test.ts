// The conformance matrix (docs/decisions/0050-client-library-matrix.md): the install flow
// (authorize, consent, code exchange, refresh, revoke) and one public call, run unmodified with each
// mainstream OAuth 2 client library, pinned in package.json. Each library is configured only with what the
// metadata document says; the one option per library that is not the default is the one its README asks
// for an http:// issuer (oauth4webapi, openid-client) or the authentication method the row is about.
import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier } from 'arctic';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { AuthorizationCode } from 'simple-oauth2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createApp, type TestApp } from './helpers.ts';

let svc: TestService;
let shop: TestMerchant;
let app: TestApp;
let metadata: {
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
};
const CALLBACK = 'http://localhost:3000/oauth/callback';
const SCOPE = 'public:read public:write';

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  const dev = await signupMerchant(svc.app, 'Dev Co');
  shop = await signupMerchant(svc.app, 'Corner Shop');
  app = await createApp(svc.app, dev, {
    redirect_uris: [CALLBACK],
    allowed_scopes: ['public:read', 'public:write'],
  });
  metadata = (await (
    await fetch(`${svc.url}/.well-known/oauth-authorization-server`)
  ).json()) as typeof metadata;
}, 120_000);
afterAll(async () => svc?.close());

/** The merchant's part, as the dashboard does it: the JSON consent endpoint with the session. */
async function approve(authorizationUrl: URL | string): Promise<URL> {
  const info = await fetch(authorizationUrl, { headers: { ...shop.auth, accept: 'application/json' } });
  expect(info.status).toBe(200);
  const { data } = (await info.json()) as { data: { consent_id: string } };
  const decision = await fetch(`${svc.url}/api/public/v1/oauth/authorize/consent`, {
    method: 'POST',
    headers: { ...shop.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ consent_id: data.consent_id, approve: true }),
  });
  expect(decision.status).toBe(200);
  return new URL(((await decision.json()) as { data: { redirect_to: string } }).data.redirect_to);
}

/** The public call: the stores the token may act on. */
async function stores(accessToken: string): Promise<number> {
  const res = await fetch(`${svc.url}/api/public/v1/stores`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  if (res.status === 200) {
    const { data } = (await res.json()) as { data: { items: { id: string }[] } };
    expect(data.items.map((s) => s.id)).toEqual([shop.storeId]);
  }
  return res.status;
}

interface Installed {
  access: string;
  refresh: string;
}

/** What every row proves, given the library's four steps. */
async function installFlow(steps: {
  authorizationUrl(state: string): Promise<URL | string>;
  exchange(callback: URL, state: string): Promise<Installed>;
  refresh(tokens: Installed): Promise<Installed>;
  revoke(tokens: Installed): Promise<void>;
}) {
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const url = new URL(await steps.authorizationUrl(state));
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  const callback = await approve(url);
  expect(callback.searchParams.get('state')).toBe(state);
  const tokens = await steps.exchange(callback, state);
  expect(tokens.access).toMatch(/^svc_oat_/);
  expect(await stores(tokens.access)).toBe(200);

  const refreshed = await steps.refresh(tokens);
  expect(refreshed.refresh).not.toBe(tokens.refresh);
  expect(await stores(refreshed.access)).toBe(200);

  await steps.revoke(refreshed);
  expect(await stores(refreshed.access)).toBe(401);
  await expect(steps.refresh(refreshed)).rejects.toThrow();
}

describe('client matrix', () => {
  it('oauth4webapi 3.8.8', async () => {
    const issuer = new URL(svc.url);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    const client: oauth.Client = { client_id: app.client_id };
    const auth = oauth.ClientSecretBasic(app.client_secret);
    const verifier = oauth.generateRandomCodeVerifier();
    await installFlow({
      async authorizationUrl(state) {
        const url = new URL(as.authorization_endpoint!);
        url.search = new URLSearchParams({
          client_id: app.client_id,
          redirect_uri: CALLBACK,
          response_type: 'code',
          scope: SCOPE,
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }).toString();
        return url;
      },
      async exchange(callback, state) {
        const params = oauth.validateAuthResponse(as, client, callback, state);
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          CALLBACK,
          verifier,
          insecure,
        );
        const t = await oauth.processAuthorizationCodeResponse(as, client, response);
        return { access: t.access_token, refresh: t.refresh_token! };
      },
      async refresh(tokens) {
        const t = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh, insecure),
        );
        return { access: t.access_token, refresh: t.refresh_token! };
      },
      async revoke(tokens) {
        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, auth, tokens.refresh, insecure),
        );
      },
    });
  });

  it('openid-client 6.8.9 (OAuth 2 mode)', async () => {
    const config = await openid.discovery(
      new URL(svc.url),
      app.client_id,
      { redirect_uris: [CALLBACK], response_types: ['code'] },
      openid.ClientSecretPost(app.client_secret),
      { execute: [openid.allowInsecureRequests] },
    );
    const verifier = openid.randomPKCECodeVerifier();
    await installFlow({
      async authorizationUrl(state) {
        return openid.buildAuthorizationUrl(config, {
          redirect_uri: CALLBACK,
          scope: SCOPE,
          code_challenge: await openid.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
        });
      },
      async exchange(callback, state) {
        const t = await openid.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
        });
        return { access: t.access_token, refresh: t.refresh_token! };
      },
      async refresh(tokens) {
        const t = await openid.refreshTokenGrant(config, tokens.refresh);
        return { access: t.access_token, refresh: t.refresh_token! };
      },
      async revoke(tokens) {
        await openid.tokenRevocation(config, tokens.refresh, { token_type_hint: 'refresh_token' });
      },
    });
  });

  it("arctic 3.7.0's OAuth2Client", async () => {
    const client = new OAuth2Client(app.client_id, app.client_secret, CALLBACK);
    const verifier = generateCodeVerifier();
    await installFlow({
      async authorizationUrl(state) {
        return client.createAuthorizationURLWithPKCE(
          metadata.authorization_endpoint,
          state,
          CodeChallengeMethod.S256,
          verifier,
          SCOPE.split(' '),
        );
      },
      async exchange(callback) {
        const t = await client.validateAuthorizationCode(
          metadata.token_endpoint,
          callback.searchParams.get('code')!,
          verifier,
        );
        expect(t.accessTokenExpiresInSeconds()).toBe(3600);
        return { access: t.accessToken(), refresh: t.refreshToken() };
      },
      async refresh(tokens) {
        const t = await client.refreshAccessToken(metadata.token_endpoint, tokens.refresh, []);
        return { access: t.accessToken(), refresh: t.refreshToken() };
      },
      async revoke(tokens) {
        await client.revokeToken(metadata.revocation_endpoint, tokens.refresh);
      },
    });
  });

  for (const authorizationMethod of ['body', 'header'] as const) {
    it(`simple-oauth2 5.1.0 with ${authorizationMethod} authentication`, async () => {
      const client = new AuthorizationCode({
        client: { id: app.client_id, secret: app.client_secret },
        auth: {
          tokenHost: svc.url,
          tokenPath: new URL(metadata.token_endpoint).pathname,
          authorizePath: new URL(metadata.authorization_endpoint).pathname,
          revokePath: new URL(metadata.revocation_endpoint).pathname,
        },
        options: { authorizationMethod },
      });
      const { verifier, challenge } = await pkcePair();
      let token: ReturnType<AuthorizationCode['createToken']> | undefined;
      await installFlow({
        // The library passes extra parameters through (its README's PKCE recipe); its typings list only
        // the common ones, so the parameters are built first rather than written inline.
        async authorizationUrl(state) {
          const params = {
            redirect_uri: CALLBACK,
            scope: SCOPE.split(' '),
            state,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          };
          return client.authorizeURL(params);
        },
        async exchange(callback) {
          const params = {
            code: callback.searchParams.get('code')!,
            redirect_uri: CALLBACK,
            code_verifier: verifier,
          };
          token = await client.getToken(params);
          return { access: String(token.token.access_token), refresh: String(token.token.refresh_token) };
        },
        async refresh(tokens) {
          token = await client
            .createToken({ access_token: tokens.access, refresh_token: tokens.refresh })
            .refresh();
          return { access: String(token.token.access_token), refresh: String(token.token.refresh_token) };
        },
        async revoke() {
          await token!.revokeAll();
        },
      });
    });
  }
});

/** simple-oauth2 leaves PKCE to the app: RFC 7636's S256 with node:crypto. */
async function pkcePair() {
  const { createHash, randomBytes } = await import('node:crypto');
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
