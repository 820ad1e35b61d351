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
// Routes: /install sends the merchant to the authorize endpoint (PKCE and state); /callback exchanges the
// code, reads which store it was installed on, lists GET /stores and creates a cart there; /refresh
// rotates the refresh token; /disconnect revokes it; /webhooks receives the events of every store that
// installed the app: it keeps each store's orders, drops an installation's tokens on app.uninstalled and
// erases a store's data on store.redact; /status shows what it holds. Everything lives in memory here: a
// real app keeps each installation (merchant_id, store_id, mode, the refresh token encrypted) and the ids
// of the events it accepted in its database.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import * as oauth from 'oauth4webapi';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const svcUrl = process.env.SVC_URL ?? 'http://127.0.0.1:4000';
const clientId = process.env.CLIENT_ID;
const clientSecret = process.env.CLIENT_SECRET;
if (!clientId || !clientSecret) {
  process.stderr.write(
    'Set CLIENT_ID and CLIENT_SECRET to the credentials shown when the app was created.\n',
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
const clientAuth = oauth.ClientSecretBasic(clientSecret);

/** What the app keeps per installation. */
interface Installation {
  merchantId: string;
  storeId: string;
  mode: string;
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
    http,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  // 4. The installation: svc adds merchant_id, store_id and mode to the RFC 6749 fields.
  const { merchant_id: merchantId, store_id: storeId, mode } = tokens;
  if (typeof merchantId !== 'string' || typeof storeId !== 'string' || typeof mode !== 'string') {
    throw new Error('the token response does not name the installation');
  }
  return { merchantId, storeId, mode, accessToken: tokens.access_token, refreshToken: tokens.refresh_token! };
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
    http,
  );
}

// 6. Refresh: each refresh token is single-use; keep the new one at once, the old one is now spent.
async function refresh(): Promise<void> {
  const response = await oauth.refreshTokenGrantRequest(
    as,
    client,
    clientAuth,
    installed!.refreshToken,
    http,
  );
  const tokens = await oauth.processRefreshTokenResponse(as, client, response);
  installed = { ...installed!, accessToken: tokens.access_token, refreshToken: tokens.refresh_token! };
}

// 7. Disconnect from the app's side: revoking the refresh token revokes its access tokens too.
async function disconnect(): Promise<void> {
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, clientAuth, installed!.refreshToken, http),
  );
  installations.delete(installed!.merchantId);
  installed = undefined;
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

// 8. What the app does with each event: acted on after the 2xx, once per event id.
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

// 9. The webhook endpoint: verify over the raw bytes (signature and the 300 s timestamp window), refuse
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
      return send(200, page('Refreshed', show({ stores_status: stores.status })));
    }
    case '/disconnect': {
      if (!installed) return send(409, page('Not installed', show({ error: 'not installed' })));
      await disconnect();
      return send(200, page('Disconnected', show({ disconnected: true })));
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
