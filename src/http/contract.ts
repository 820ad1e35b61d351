// The public contract of every request in one step (docs/decisions/0220-public-contract-in-one-step.md): the
// request id echoed, `Connection: close` while draining, the security headers (security-headers.ts), CORS on
// the public interface (cors.ts), the mode header (API.md section 1) and, on a public route, the bearer check
// (public-auth.ts). They were five onRequest hooks (@fastify/cors's among them), each a turn of Fastify's
// hook loop and its own look at the URL; here the URL is read once and the request's family decides the rest.
// The order of the answers is the chain's: a preflight is answered before the mode and the credential are
// looked at, a bad mode before the credential, and every refusal carries the headers set before it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { AppError } from '../lib/errors.ts';
import {
  ALLOWED_HEADERS,
  EXPOSED_HEADERS,
  MAX_AGE_S,
  OAUTH_PREFIX,
  PUBLIC_PREFIX,
  methodsOf,
} from './cors.ts';
import { publicAuth, type CredentialResolvers } from './public-auth.ts';
import { DOCS, HSTS, NO_STORE, docsPolicy } from './security-headers.ts';

type Done = (err?: Error) => void;

const API = '/api/';
const MAX_AGE = String(MAX_AGE_S);

/** A preflight on a public path: 204 with the path's methods, without a credential (browsers send none). */
function preflight(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('access-control-allow-methods', methodsOf(app, request.url));
  void reply.header('access-control-allow-headers', ALLOWED_HEADERS);
  void reply.header('access-control-max-age', MAX_AGE);
  void reply.code(204).header('content-length', '0').send();
}

/** Installs the one onRequest step of every request; `credentials` verify the public interface's bearers. */
export function contractStep(app: FastifyInstance, ctx: Context, credentials: CredentialResolvers): void {
  const https = ctx.config.publicUrl.startsWith('https:');
  const authenticate = publicAuth(credentials);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: Done) => {
    const url = request.url;
    void reply.header('x-request-id', request.id);
    if (ctx.lifecycle.draining) void reply.header('connection', 'close');
    // As @fastify/cors answered with its per-request options: the answer may differ by Origin.
    void reply.header('vary', 'Origin');
    void reply.header('x-content-type-options', 'nosniff');
    if (https) void reply.header('strict-transport-security', HSTS);
    const api = url.startsWith(API);
    if (api || NO_STORE.test(url)) void reply.header('cache-control', 'no-store');
    else if (DOCS.test(url)) {
      void reply.header('x-frame-options', 'DENY');
      void reply.header('content-security-policy', docsPolicy(''));
    }
    // The OAuth protocol endpoints answer in RFC form and ignore what they do not know (the mode header too).
    if (!api || url.startsWith(OAUTH_PREFIX)) return done();
    const isPublic = url.startsWith(PUBLIC_PREFIX);
    if (isPublic) {
      void reply.header('access-control-allow-origin', '*');
      void reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      if (request.method === 'OPTIONS') return preflight(app, request, reply);
    }
    const mode = request.headers['x-svc-mode'];
    if (mode !== undefined) {
      if (mode !== 'test' && mode !== 'live') {
        return done(new AppError('invalid_mode', 'X-Svc-Mode must be "test" or "live".'));
      }
      request.mode = mode;
      request.modeHeader = mode;
    }
    // A path under the prefix that no route answers is a 404, whatever credential it came with.
    if (isPublic && !request.is404) return authenticate(request, reply, done);
    done();
  });
}
