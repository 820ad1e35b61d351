// A small third-party app (node:http), as an integrator would write one: /start sends the merchant to the
// authorize endpoint with PKCE and a state, /callback exchanges the code at the token endpoint
// (client_secret_basic, form body) and calls the public API with the access token, /call calls it again.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthClient {
  base: string;
  redirectUri: string;
  setCredentials(clientId: string, clientSecret: string): void;
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString('base64url');
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>${body}</html>`;

export async function startOAuthClient(issuer: string): Promise<OAuthClient> {
  const pending = new Map<string, string>();
  let client = { id: '', secret: '' };
  let accessToken = '';

  async function callApi(): Promise<string> {
    const res = await fetch(`${issuer}/api/public/v1/payments/supported-countries`, {
      headers: { authorization: `Bearer ${accessToken}`, 'x-svc-mode': 'test' },
    });
    const json = (await res.json()) as { data?: { items: unknown[] }; error?: { code: string } };
    return res.ok
      ? `<p id="result">API answered ${res.status}: ${json.data!.items.length} countries</p>`
      : `<p id="result">API answered ${res.status}: ${json.error?.code}</p>`;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://client.local');
    const send = (status: number, html: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(html);

    if (url.pathname === '/start') {
      const state = b64url(randomBytes(16));
      const verifier = b64url(randomBytes(32));
      pending.set(state, verifier);
      const authorize = new URL(`${issuer}/api/public/v1/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.id,
        redirect_uri: redirectUri,
        scope: 'public:read',
        state,
        code_challenge: b64url(createHash('sha256').update(verifier).digest()),
        code_challenge_method: 'S256',
      }).toString();
      return send(302, '', { location: authorize.href });
    }
    if (url.pathname === '/callback') {
      void (async () => {
        const state = url.searchParams.get('state') ?? '';
        const verifier = pending.get(state);
        if (!verifier) return send(400, page('Unknown state', ''));
        pending.delete(state);
        if (url.searchParams.get('iss') !== issuer) return send(400, page('Wrong issuer', ''));
        const error = url.searchParams.get('error');
        if (error) return send(200, page('Not installed', `<p id="result">${error}</p>`));
        const token = await fetch(`${issuer}/api/public/v1/oauth/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`,
          },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: url.searchParams.get('code') ?? '',
            redirect_uri: redirectUri,
            code_verifier: verifier,
          }).toString(),
        });
        const body = (await token.json()) as { access_token?: string; error?: string };
        if (!token.ok || !body.access_token)
          return send(200, page('Token exchange failed', `<p id="result">${body.error}</p>`));
        accessToken = body.access_token;
        send(200, page('Installed', await callApi()));
      })().catch((err: unknown) => send(500, page('Client error', String(err))));
      return;
    }
    if (url.pathname === '/call') {
      void callApi().then((html) => send(200, page('Called the API', html)));
      return;
    }
    if (url.pathname === '/favicon.ico') return res.writeHead(204).end();
    send(404, page('Not found', ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUri = `${base}/callback`;
  return {
    base,
    redirectUri,
    setCredentials(id, secret) {
      client = { id, secret };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
