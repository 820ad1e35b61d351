// Public interface authentication (API.md section 6, seed section 5). One hook resolves the bearer
// credential to a principal through the resolver its module contributed for its kind (keys, OAuth tokens),
// then checks the mode header and the scope the method needs. The order of the checks fixes the answer:
// no credential 401, unknown 401, wrong mode 400, missing scope 403.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import { parseCredential, type CredentialKind as AnyCredentialKind } from '../lib/credentials.ts';
import type { Context } from '../context.ts';
import type { CredentialKind, PublicPrincipal } from './request.ts';
import { bearerToken } from './merchant-auth.ts';
import { neededScope, scopeAllows } from '../lib/scopes.ts';

/**
 * What a resolver answers: at once for a verification it holds in memory, without a promise (the bearer
 * check runs on every public call, and each promise and microtask hop on it costs about a microsecond);
 * a promise when it must look the credential up.
 */
export type Resolved = PublicPrincipal | undefined | Promise<PublicPrincipal | undefined>;

/** Called only with a token already recognised (prefix and checksum) as the kind it was registered for. */
export type CredentialResolver = (ctx: Context, token: string) => Resolved;

/**
 * The verifiers of every credential kind, filled by the composition from what the modules contribute (keys
 * for `secret_key`/`publishable_key`, OAuth for `access_token`): the bearer check and introspection use it.
 */
export class CredentialResolvers {
  private readonly byKind = new Map<AnyCredentialKind, CredentialResolver>();

  add(kind: CredentialKind, resolver: CredentialResolver): void {
    if (this.byKind.has(kind)) throw new Error(`two resolvers for ${kind}`);
    this.byKind.set(kind, resolver);
  }

  resolve(ctx: Context, token: string): Resolved {
    const parsed = parseCredential(token);
    const resolver = parsed && this.byKind.get(parsed.kind);
    return resolver ? resolver(ctx, token) : undefined;
  }
}

function challenge(error?: string): Record<string, string> {
  return { 'www-authenticate': error ? `Bearer realm="svc", error="${error}"` : 'Bearer realm="svc"' };
}

type Done = (err?: Error) => void;

/**
 * The public interface's `onRequest` hook over the given resolvers. A callback hook, so that a credential
 * verified from memory passes with no promise at all.
 */
export function publicAuth(credentials: CredentialResolvers) {
  return (request: FastifyRequest, _reply: FastifyReply, done: Done): void => {
    // a route open to anyone (the webhook source addresses) takes no credential and has no principal
    if (request.routeOptions.config.anonymous) return done();
    const token = bearerToken(request);
    if (token === undefined) {
      request.server.ctx.metrics.authFailure.unauthenticated.inc();
      return done(
        new AppError(
          'unauthenticated',
          'Send a secret key, publishable key or access token as a Bearer token.',
          { headers: challenge() },
        ),
      );
    }
    const principal = token ? credentials.resolve(request.server.ctx, token) : undefined;
    if (principal instanceof Promise) {
      principal.then((resolved) => admit(request, token, resolved)).then(done, done);
    } else {
      done(admit(request, token, principal));
    }
  };
}

/** Sets the request's principal if the credential may make this call; otherwise the error to answer. */
function admit(
  request: FastifyRequest,
  token: string,
  principal: PublicPrincipal | undefined,
): AppError | undefined {
  const { metrics } = request.server.ctx;
  if (!principal) {
    metrics.authFailure.invalid.inc();
    return new AppError('invalid_credential', 'The credential is unknown, malformed, revoked or expired.', {
      headers: challenge('invalid_token'),
    });
  }
  // A verified credential names its merchant: the call is in its request log from here on, refused or not.
  request.caller = {
    merchantId: principal.merchantId,
    mode: principal.mode,
    type: principal.kind,
    id:
      principal.kind === 'access_token'
        ? (principal.appId ?? principal.credentialId)
        : principal.credentialId,
    last4: token.slice(-4),
  };
  // Seed 5.4: a secret key or an access token must not be used from browser code. Every browser sends
  // `Origin` on a cross-origin call; server-side HTTP clients do not (see docs/decisions/0011-secret-credentials-refused-from-browsers.md).
  if (principal.kind !== 'publishable_key' && request.headers.origin !== undefined) {
    metrics.authFailure.browser.inc();
    return new AppError(
      'credential_not_browser_safe',
      principal.kind === 'secret_key'
        ? 'A secret key belongs on a server: call this API from your backend, or use a publishable key in the browser.'
        : "An OAuth access token belongs on a server: call this API from your app's backend, not from a browser.",
    );
  }
  if (request.modeHeader && request.modeHeader !== principal.mode) {
    metrics.authFailure.mode.inc();
    return new AppError(
      'mode_mismatch',
      `X-Svc-Mode is ${request.modeHeader} but the credential is ${principal.mode}.`,
    );
  }
  if (!scopeAllows(principal.scopes, request.method)) {
    metrics.authFailure.scope.inc();
    const what =
      principal.kind === 'publishable_key'
        ? 'A publishable key is read-only'
        : 'The credential lacks the scope';
    return new AppError(
      'insufficient_scope',
      `${what}: ${request.method} needs ${neededScope(request.method)}.`,
      {
        headers: challenge('insufficient_scope'),
      },
    );
  }
  request.principal = principal;
  request.mode = principal.mode;
  return undefined;
}
