// A third-party app that installs on svc stores, runnable as is with oauth4webapi (a certified, standard
// OAuth 2 client) and the official `standardwebhooks` verifier, on the project's own Node 24 (which `npm ci`
// installs and which runs this TypeScript directly; the machine's own `node` may be too old):
//
//   SVC_URL=http://127.0.0.1:4000 CLIENT_ID=svc_ca_... CLIENT_SECRET=svc_test_cs_... \
//     WEBHOOK_SECRET=whsec_... PORT=8788 node_modules/.bin/node examples/oauth-app.ts
//
// Register http://127.0.0.1:8788/callback as a redirect URI of the app, create a webhook of the app (app_id)
// for http://127.0.0.1:8788/webhooks subscribed to order.created, app.uninstalled and store.redact (its
// secret is WEBHOOK_SECRET; local targets need SVC_WEBHOOK_ALLOW_PRIVATE=1 on the service), then open
// http://127.0.0.1:8788/ and press "Install". docs/guides/oauth-apps.md walks through it step by step.
//
// Two options, each a standard that oauth4webapi implements (chapters 14 and 15 of the guide):
//
//   --private-key-jwt  authenticate with a key instead of the client secret (RFC 7523; CLIENT_SECRET is then
//                      not needed). The Ed25519 private key is read from PRIVATE_KEY_FILE (default
//                      oauth-app-key.json), and made there (mode 0600) the first time. Register its public
//                      half on the app once, then start the app with the option:
//                        JWKS=$(node_modules/.bin/node examples/oauth-app.ts --print-jwks)
//                        curl -X PATCH "$SVC/api/v1/merchant/apps/app_..." -H "authorization: Bearer $SESSION" \
//                          -H 'content-type: application/json' \
//                          -d "{\"token_endpoint_auth_method\":\"private_key_jwt\",\"jwks\":$JWKS}"
//                      (or paste the JWKS under "Client authentication" on the app's page in the dashboard).
//   --dpop             bind every token to a key pair of this process (RFC 9449): each token request and
//                      each API call carries a DPoP proof made with it, and a copy of a token is useless
//                      without the key.
//
// Routes: /install sends the merchant to the authorize endpoint (PKCE and state); /callback exchanges the
// code, reads which store it was installed on, lists GET /stores and creates a cart there; /refresh
// rotates the refresh token; /disconnect revokes it; /installations lists, with an app token, the stores
// that installed the app, and /uninstall?grant_id=... uninstalls it from one; /webhooks receives the events
// of every store that installed the app: it keeps each store's orders, drops an installation's tokens on
// app.uninstalled and erases a store's data on store.redact; /status shows what it holds. Everything lives in memory here: a
// real app keeps each installation (merchant_id, store_id, mode, the refresh token encrypted) and the ids
// of the events it accepted in its database.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import * as oauth from 'oauth4webapi';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const flags = new Set(process.argv.slice(2));
const keyFile = process.env.PRIVATE_KEY_FILE ?? 'oauth-app-key.json';

/** The app's Ed25519 key for private_key_jwt: read from keyFile, or made and saved there the first time. */
async function signingKey(): Promise<{ privateKey: CryptoKey; publicJwk: JsonWebKey & { kid: string } }> {
  let jwk: JsonWebKey & { kid: string };
  try {
    jwk = JSON.parse(readFileSync(keyFile, 'utf8')) as JsonWebKey & { kid: string };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
    jwk = { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid: randomUUID() };
    // The private half stays on this machine, readable by its owner only; never register or send it.
    writeFileSync(keyFile, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
  }
  const { kty, crv, x, kid } = jwk;
  const privateKey = await crypto.subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
  return { privateKey, publicJwk: { kty, crv, x, kid } };
}

// --print-jwks: the public key to register on the app, as a JWKS, and nothing else.
if (flags.has('--print-jwks')) {
  process.stdout.write(`${JSON.stringify({ keys: [(await signingKey()).publicJwk] })}\n`);
  process.exit(0);
}

const svcUrl = process.env.SVC_URL ?? 'http://127.0.0.1:4000';
const clientId = process.env.CLIENT_ID;
const clientSecret = process.env.CLIENT_SECRET;
const privateKeyJwt = flags.has('--private-key-jwt');
if (!clientId || (!clientSecret && !privateKeyJwt)) {
  process.stderr.write(
    'Set CLIENT_ID and CLIENT_SECRET to the credentials shown when the app was created ' +
      '(CLIENT_ID alone with --private-key-jwt).\n',
  );
  process.exit(1);
}
const port = Number(process.env.PORT ?? 8788);
const redirectUri = process.env.REDIRECT_URI ?? `http://127.0.0.1:${port}/callback`;
const scope = process.env.SCOPE ?? 'public:read public:write';
// oauth4webapi refuses plain http unless told: allowed here for a local svc only.
const http = svcUrl.startsWith('http:') ? { [oauth.allowInsecureRequests]: true } : {};

// 1. Discovery: the endpoints, from the RFC 8414 metadata document.
const issuer = new URL(svcUrl);
const as = await oauth.processDiscoveryResponse(
  issuer,
  await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...http }),
);
const client: oauth.Client = { client_id: clientId };
// How the app authenticates at the token and revocation endpoints: its secret, or with --private-key-jwt a
// JWT signed by its key, which the library makes afresh for each request (RFC 7523).
const key = privateKeyJwt ? await signingKey() : undefined;
const clientAuth = key
  ? oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.publicJwk.kid })
  : oauth.ClientSecretBasic(clientSecret!);
// With --dpop, one key pair for this process: every token request and API call carries a proof made with it,
// and the access tokens are bound to it. A real app keeps the pair with the installation's tokens, as a bound
// token is useless without it; the refresh token of a confidential client stays unbound, so a restarted app
// refreshes with a new pair.
const dpop = flags.has('--dpop') ? oauth.DPoP(client, await oauth.generateKeyPair('ES256')) : undefined;
const options = { ...http, ...(dpop ? { DPoP: dpop } : {}) };

/** What the app keeps per installation. */
interface Installation {
  merchantId: string;
  storeId: string;
  mode: string;
  tokenType: string;
  accessToken: string;
  refreshToken: string;
}
const pending = new Map<string, string>(); // state -> PKCE code verifier, for 10 minutes at most
let installed: Installation | undefined;
// Every installation's tokens, by merchant: one installation per merchant and app.
const installations = new Map<string, Installation>();
// The store data the app keeps (here, the orders it heard of), which store.redact asks it to erase.
const orders = new Map<string, string[]>();
// Events already accepted, by webhook-id: delivery is at least once, so a retry must not act twice.
const accepted = new Set<string>();
const webhookSecret = process.env.WEBHOOK_SECRET;
const verifier = webhookSecret ? new Webhook(webhookSecret) : undefined;

// 2. The authorize URL: PKCE (S256) and a state that ties the callback to this browser's request.
async function authorizeUrl(): Promise<URL> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  pending.set(state, verifier);
  setTimeout(() => pending.delete(state), 600_000).unref();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url;
}

// 3. The callback: check state and iss (RFC 9207), then exchange the code with the verifier.
async function exchange(callback: URL): Promise<Installation> {
  const state = callback.searchParams.get('state') ?? '';
  const verifier = pending.get(state);
  if (!verifier) throw new Error('unknown or expired state: start the install again');
  pending.delete(state);
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    redirectUri,
    verifier,
    options,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  // 4. The installation: svc adds merchant_id, store_id and mode to the RFC 6749 fields.
  const { merchant_id: merchantId, store_id: storeId, mode } = tokens;
  if (typeof merchantId !== 'string' || typeof storeId !== 'string' || typeof mode !== 'string') {
    throw new Error('the token response does not name the installation');
  }
  const { token_type: tokenType, access_token: accessToken, refresh_token: refreshToken } = tokens;
  return { merchantId, storeId, mode, tokenType, accessToken, refreshToken: refreshToken! };
}

// 5. Calls of the public API, from the server (a browser must never hold the access token).
async function api(method: string, path: string, idempotencyKey?: string): Promise<Response> {
  const headers = new Headers();
  if (idempotencyKey) headers.set('idempotency-key', idempotencyKey);
  return oauth.protectedResourceRequest(
    installed!.accessToken,
    method,
    new URL(`/api/public/v1${path}`, svcUrl),
    headers,
    null,
    options,
  );
}

// 6. Refresh: each refresh token is single-use; keep the new one at once, the old one is now spent.
async function refresh(): Promise<void> {
  const response = await oauth.refreshTokenGrantRequest(
    as,
    client,
    clientAuth,
    installed!.refreshToken,
    options,
  );
  const tokens = await oauth.processRefreshTokenResponse(as, client, response);
  const { token_type: tokenType, access_token: accessToken, refresh_token: refreshToken } = tokens;
  installed = { ...installed!, tokenType, accessToken, refreshToken: refreshToken! };
}

// 7. Disconnect from the app's side: revoking the refresh token revokes its access tokens too.
async function disconnect(): Promise<void> {
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, clientAuth, installed!.refreshToken, http),
  );
  installations.delete(installed!.merchantId);
  installed = undefined;
}

// 8. The app's own view: an app token (client_credentials: scope app:installations, at most an hour, no
// refresh token, no store's data) lists the stores that installed the app, and uninstalls it from one.
async function installationsCall(method: 'GET' | 'DELETE', grantId?: string): Promise<Response> {
  const granted = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(as, client, clientAuth, new URLSearchParams(), options),
  );
  const path = `/api/public/v1/app/installations${grantId ? `/${encodeURIComponent(grantId)}` : ''}`;
  return oauth.protectedResourceRequest(
    granted.access_token,
    method,
    new URL(path, svcUrl),
    new Headers(),
    null,
    options,
  );
}

/** An event of an installed store, as an app webhook receives it: the event plus its installation. */
interface AppEvent {
  id: string;
  type: string;
  merchant_id: string;
  app_id: string;
  grant_id: string | null;
  store_id: string | null;
  data: Record<string, unknown>;
}

// 9. What the app does with each event: acted on after the 2xx, once per event id.
function handle(event: AppEvent): void {
  switch (event.type) {
    case 'order.created':
      if (event.store_id)
        orders.set(event.store_id, [...(orders.get(event.store_id) ?? []), String(event.data.id)]);
      return;
    case 'app.uninstalled':
      // The merchant disconnected the app: its tokens already fail; forget them.
      installations.delete(event.merchant_id);
      if (installed?.merchantId === event.merchant_id) installed = undefined;
      return;
    case 'store.redact':
      // Uninstalled long enough ago and not installed again: erase everything kept about the store.
      if (event.store_id) orders.delete(event.store_id);
      return;
    default:
      // Ignore types it does not act on (the catalog grows; new fields appear too).
      return;
  }
}

// 10. The webhook endpoint: verify over the raw bytes (signature and the 300 s timestamp window), refuse
// what does not verify, answer 2xx once the event is accepted, and act on each event id once.
function receive(raw: string, headers: Record<string, string>): number {
  if (!verifier) return 503; // WEBHOOK_SECRET not set: svc retries later
  let event: AppEvent;
  try {
    event = verifier.verify(raw, headers) as AppEvent;
  } catch (err) {
    return err instanceof WebhookVerificationError ? 400 : 500;
  }
  if (accepted.has(event.id)) return 200; // a retry of an event already accepted
  accepted.add(event.id);
  setImmediate(() => handle(event));
  return 204;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>${body}</html>`;
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const show = (value: unknown) => `<pre id="result">${escape(JSON.stringify(value, null, 2))}</pre>`;

async function route(url: URL, res: ServerResponse): Promise<void> {
  const send = (status: number, html: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(html);
  };
  switch (url.pathname) {
    case '/':
      return send(200, page('Inventory Sync', '<p><a href="/install">Install on your store</a></p>'));
    case '/install':
      return send(302, '', { location: (await authorizeUrl()).href });
    case '/callback': {
      if (url.searchParams.has('error')) {
        return send(200, page('Not installed', show({ error: url.searchParams.get('error') })));
      }
      installed = await exchange(url);
      const stores = (await (await api('GET', '/stores')).json()) as { data: { items: unknown[] } };
      // A retry of this call with the same key returns the same cart instead of a second one.
      const cart = await api('POST', `/stores/${installed.storeId}/cart`, randomUUID());
      const created = (await cart.json()) as { data: { id: string } };
      installations.set(installed.merchantId, installed);
      return send(
        200,
        page(
          'Installed',
          show({
            merchant_id: installed.merchantId,
            store_id: installed.storeId,
            mode: installed.mode,
            token_type: installed.tokenType,
            stores: stores.data.items,
            cart_status: cart.status,
            cart_id: created.data.id,
          }),
        ),
      );
    }
    case '/refresh': {
      if (!installed) return send(409, page('Not installed', show({ error: 'not installed' })));
      await refresh();
      installations.set(installed.merchantId, installed);
      const stores = await api('GET', '/stores');
      const refreshed = { token_type: installed.tokenType, stores_status: stores.status };
      return send(200, page('Refreshed', show(refreshed)));
    }
    case '/disconnect': {
      if (!installed) return send(409, page('Not installed', show({ error: 'not installed' })));
      await disconnect();
      return send(200, page('Disconnected', show({ disconnected: true })));
    }
    case '/installations': {
      const listed = await installationsCall('GET');
      const body = (await listed.json()) as { data: { items: unknown[] } };
      return send(
        200,
        page('Installations', show({ status: listed.status, installations: body.data.items })),
      );
    }
    case '/uninstall': {
      const left = await installationsCall('DELETE', url.searchParams.get('grant_id') ?? '');
      return send(200, page('Uninstalled', show({ status: left.status })));
    }
    case '/status':
      return send(
        200,
        page(
          'Status',
          show({
            installed_merchants: [...installations.keys()],
            orders: Object.fromEntries(orders),
          }),
        ),
      );
    case '/favicon.ico':
      return void res.writeHead(204).end();
    default:
      return send(404, page('Not found', ''));
  }
}

createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/webhooks') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = receive(Buffer.concat(chunks).toString('utf8'), {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      });
      res.writeHead(status).end();
    });
    return;
  }
  route(new URL(req.url ?? '/', `http://127.0.0.1:${port}`), res).catch((err: unknown) => {
    // oauth4webapi throws ResponseBodyError with the RFC error code (invalid_grant, ...).
    const code = err instanceof oauth.ResponseBodyError ? err.error : String(err);
    res
      .writeHead(500, { 'content-type': 'text/html; charset=utf-8' })
      .end(page('Error', show({ error: code })));
  });
}).listen(port, '127.0.0.1', () => {
  process.stdout.write(`oauth app listening on http://127.0.0.1:${port}\n`);
});
