// Drives the OAuth flow over app.inject, as a dashboard and an app would.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TestMerchant } from '../support/merchants.ts';

export const REDIRECT = 'https://app.example.com/callback';

export interface TestApp {
  id: string;
  client_id: string;
  client_secret: string;
  mode: 'test' | 'live';
  redirect_uris: string[];
  allowed_scopes: string[];
}

export async function createApp(
  app: FastifyInstance,
  owner: TestMerchant,
  body: Record<string, unknown> = {},
  mode: 'test' | 'live' = 'test',
): Promise<TestApp> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/merchant/developer/apps',
    headers: { ...owner.auth, 'x-svc-mode': mode },
    payload: {
      name: 'Shipping helper',
      redirect_uris: [REDIRECT],
      allowed_scopes: ['public:*'],
      ...body,
    },
  });
  if (res.statusCode !== 201) throw new Error(`create app: ${res.statusCode} ${res.body}`);
  return res.json().data as TestApp;
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export function authorizeUrl(client: TestApp, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    scope: 'public:*',
    state: 'st-123',
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) q.set(k, v);
  return `/api/public/v1/oauth/authorize?${q.toString()}`;
}

/** Authorize (JSON), approve, and return the code and the verifier. */
export async function getCode(
  app: FastifyInstance,
  client: TestApp,
  merchant: TestMerchant,
  params: Record<string, string> = {},
): Promise<{ code: string; verifier: string; redirectTo: URL }> {
  const { verifier, challenge } = pkce();
  const res = await app.inject({
    url: authorizeUrl(client, { code_challenge: challenge, ...params }),
    headers: { ...merchant.auth, accept: 'application/json' },
  });
  if (res.statusCode !== 200) throw new Error(`authorize: ${res.statusCode} ${res.body}`);
  const consentId = res.json().data.consent_id as string;
  const decision = await app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/authorize/consent',
    headers: merchant.auth,
    payload: { consent_id: consentId, approve: true },
  });
  if (decision.statusCode !== 200) throw new Error(`consent: ${decision.statusCode} ${decision.body}`);
  const redirectTo = new URL(decision.json().data.redirect_to as string);
  return { code: redirectTo.searchParams.get('code')!, verifier, redirectTo };
}

export function basic(client: { client_id: string; client_secret: string }): Record<string, string> {
  const raw = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`;
  return { authorization: `Basic ${Buffer.from(raw).toString('base64')}` };
}

export async function tokenCall(
  app: FastifyInstance,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
}

export async function exchange(app: FastifyInstance, client: TestApp, code: string, verifier: string) {
  const res = await tokenCall(
    app,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect_uris[0]!,
      code_verifier: verifier,
    },
    basic(client),
  );
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return res.json<{ access_token: string; refresh_token: string; scope: string; expires_in: number }>();
}

export async function refresh(app: FastifyInstance, client: TestApp, refreshToken: string) {
  return tokenCall(app, { grant_type: 'refresh_token', refresh_token: refreshToken }, basic(client));
}

/** A read through the public API with the token: 200 when it works. */
export async function readWith(app: FastifyInstance, accessToken: string): Promise<number> {
  const res = await app.inject({
    url: '/api/public/v1/payments/supported-countries',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return res.statusCode;
}
