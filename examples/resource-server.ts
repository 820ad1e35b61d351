// Another service of the platform that accepts svc's bearer credentials, runnable as is with nothing but
// node:http, on the project's own Node 24 (which `npm ci` installs and which runs this TypeScript directly;
// the machine's own `node` may be too old):
//
//   SVC_URL=http://127.0.0.1:4000 SVC_INTERNAL_TOKEN=... PORT=8790 node_modules/.bin/node examples/resource-server.ts
//   curl -H "Authorization: Bearer svc_test_sk_..." http://127.0.0.1:8790/orders
//
// It serves an invented GET /orders. Every request's credential (secret key, publishable key or OAuth
// access token) is checked by svc's introspection endpoint (RFC 7662) with the platform's internal token,
// then held to the same rules as svc's own public API: the mode header, the browser rule and the scope
// the method needs. docs/guides/platform-services.md explains each step, and what caching would cost.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const svcUrl = process.env.SVC_URL ?? 'http://127.0.0.1:4000';
const internalToken = process.env.SVC_INTERNAL_TOKEN;
if (!internalToken) {
  process.stderr.write('Set SVC_INTERNAL_TOKEN to the internal token svc was started with.\n');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 8790);

interface Introspection {
  active: boolean;
  token_type?: 'secret_key' | 'publishable_key' | 'access_token';
  scope?: string;
  merchant_id?: string;
  store_id?: string | null;
  mode?: 'test' | 'live';
  app_id?: string;
  key_id?: string;
}

// 1. Ask svc. Nothing is cached: a credential revoked in svc is refused here on the next request.
async function introspect(token: string): Promise<Introspection> {
  const res = await fetch(`${svcUrl}/api/public/v1/oauth/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${internalToken}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
    signal: AbortSignal.timeout(2000),
  });
  if (res.status !== 200) throw new Error(`introspection answered ${res.status}`);
  return (await res.json()) as Introspection;
}

// 2. Scopes to methods, as svc's public API maps them.
function scopeAllows(scope: string, method: string): boolean {
  const scopes = scope.split(' ');
  const needed = method === 'GET' || method === 'HEAD' ? 'public:read' : 'public:write';
  return scopes.includes('public:*') || scopes.includes(needed);
}

function fail(res: ServerResponse, status: number, code: string, message: string, extra = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(JSON.stringify({ error: { code, message } }));
}

/** The caller, or `undefined` once an error has been answered. */
async function authenticate(req: IncomingMessage, res: ServerResponse) {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) {
    fail(res, 401, 'unauthenticated', 'Send a svc credential as a Bearer token.', {
      'www-authenticate': 'Bearer realm="orders"',
    });
    return undefined;
  }
  let who: Introspection;
  try {
    who = await introspect(match[1]!);
  } catch {
    // Fail closed: without svc's answer, no credential is trusted.
    fail(res, 503, 'service_unavailable', 'Credentials cannot be checked right now.', { 'retry-after': '1' });
    return undefined;
  }
  if (!who.active) {
    fail(res, 401, 'invalid_credential', 'The credential is unknown, malformed, revoked or expired.', {
      'www-authenticate': 'Bearer realm="orders", error="invalid_token"',
    });
    return undefined;
  }
  const mode = req.headers['x-svc-mode'];
  if (mode !== undefined && mode !== who.mode) {
    fail(res, 400, 'mode_mismatch', `X-Svc-Mode is ${String(mode)} but the credential is ${who.mode}.`);
    return undefined;
  }
  if (who.token_type !== 'publishable_key' && req.headers.origin !== undefined) {
    fail(res, 403, 'credential_not_browser_safe', 'Secret keys and access tokens belong on a server.');
    return undefined;
  }
  if (!scopeAllows(who.scope ?? '', req.method ?? 'GET')) {
    fail(res, 403, 'insufficient_scope', 'The credential lacks the scope this method needs.');
    return undefined;
  }
  return who;
}

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== '/orders') return fail(res, 404, 'not_found', 'No such path.');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return fail(res, 405, 'method_not_allowed', 'GET only.', { allow: 'GET, HEAD' });
  }
  void authenticate(req, res).then((who) => {
    if (!who) return;
    // 3. Act for the merchant, store and mode the credential names, and only for them.
    process.stdout.write(
      `GET /orders merchant=${who.merchant_id} store=${who.store_id} mode=${who.mode} via=${who.token_type}\n`,
    );
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: { items: [], count: 0, has_more: false, next_cursor: null } }));
  });
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${port}/orders\n`);
});
