// Seeding through the service's real HTTP API, as an integrator would: signup, keys, apps, the OAuth
// consent flow through its JSON endpoints, webhooks. Not on any measured path, so plain fetch is fine.
import { createHash, randomBytes } from 'node:crypto';

export interface ApiAnswer {
  status: number;
  body: any;
  text: string;
}

export interface Merchant {
  token: string;
  merchantId: string;
  storeId: string;
}

export class Api {
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }

  async call(
    method: string,
    path: string,
    o: {
      token?: string;
      body?: unknown;
      headers?: Record<string, string>;
      form?: Record<string, string>;
    } = {},
  ): Promise<ApiAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(o.form).toString();
    } else if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    const res = await fetch(this.url + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // an HTML page or empty body
    }
    return { status: res.status, body: parsed, text };
  }

  async expect(status: number, method: string, path: string, o: Parameters<Api['call']>[2] = {}) {
    const res = await this.call(method, path, o);
    if (res.status !== status) {
      throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
    }
    return res.body;
  }

  async signup(name: string): Promise<Merchant> {
    const email = `bench-${randomBytes(6).toString('hex')}@example.com`;
    const { data } = await this.expect(201, 'POST', '/api/v1/merchant/auth/signup', {
      body: { merchant_name: name, email, password: 'correct horse battery' },
    });
    const me = await this.expect(200, 'GET', '/api/v1/merchant/me', { token: data.token });
    return { token: data.token, merchantId: data.merchant.id, storeId: me.data.stores[0].id };
  }
}

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface OAuthApp {
  id: string;
  clientId: string;
  clientSecret: string;
}

export async function createApp(api: Api, m: Merchant): Promise<OAuthApp> {
  const { data } = await api.expect(201, 'POST', '/api/v1/merchant/developer/apps', {
    token: m.token,
    body: { name: 'Bench app', redirect_uris: [REDIRECT_URI], allowed_scopes: ['public:read'] },
  });
  return { id: data.id, clientId: data.client_id, clientSecret: data.client_secret };
}

/** One authorization through the JSON consent endpoints: a fresh code and its PKCE verifier. */
export async function authorize(
  api: Api,
  m: Merchant,
  app: OAuthApp,
): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'public:read',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const consent = await api.expect(200, 'GET', `/api/public/v1/oauth/authorize?${query}`, { token: m.token });
  const approved = await api.expect(200, 'POST', '/api/public/v1/oauth/authorize/consent', {
    token: m.token,
    body: { consent_id: consent.data.consent_id, approve: true },
  });
  const code = new URL(approved.data.redirect_to as string).searchParams.get('code');
  if (!code) throw new Error(`consent answered no code: ${approved.data.redirect_to}`);
  return { code, verifier };
}

export async function exchangeCode(api: Api, app: OAuthApp, c: { code: string; verifier: string }) {
  const res = await api.expect(200, 'POST', '/api/public/v1/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      redirect_uri: REDIRECT_URI,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    },
  });
  return res as { access_token: string; refresh_token: string };
}

/** Runs `fn` over `items` with at most `concurrency` in flight. */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
) {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
    }),
  );
  return out;
}
