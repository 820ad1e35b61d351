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

/** Checks a DPoP proof (RFC 9449 4.3) of a call: the key's thumbprint, or why the proof is refused. */
export type DpopVerifier = (
  ctx: Context,
  check: { proof: string; method: string; url: string; accessToken: string },
) => Promise<{ jkt: string } | { error: string }>;

/**
 * The verifiers of every credential kind, filled by the composition from what the modules contribute (keys
 * for `secret_key`/`publishable_key`, OAuth for `access_token`): the bearer check and introspection use it.
 */
export class CredentialResolvers {
  private readonly byKind = new Map<AnyCredentialKind, CredentialResolver>();
  /** The DPoP proof check, given by the module that binds tokens; none: DPoP calls are refused. */
  dpop: DpopVerifier | undefined;

  setDpop(verifier: DpopVerifier): void {
    if (this.dpop) throw new Error('two DPoP verifiers');
    this.dpop = verifier;
  }

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

/** RFC 9449 7.1: a DPoP call's refusal names the scheme, the algorithms and what was wrong. */
function dpopRefusal(error: 'invalid_token' | 'invalid_dpop_proof', message: string): AppError {
  return new AppError('invalid_credential', message, {
    headers: { 'www-authenticate': `DPoP algs="EdDSA ES256 RS256", error="${error}"` },
  });
}

const DPOP_SCHEME = /^DPoP[ ]+(\S+)\s*$/i;

/**
 * `Authorization: DPoP <token>` with its `DPoP` proof: the token must be bound, and the proof made for this
 * call (method, URL, the token's hash, a fresh jti) with the key it is bound to. Then the usual checks.
 */
async function dpopAdmit(
  credentials: CredentialResolvers,
  request: FastifyRequest,
  token: string,
): Promise<AppError | undefined> {
  const ctx = request.server.ctx;
  const principal = await credentials.resolve(ctx, token);
  if (!principal) {
    ctx.metrics.authFailure.invalid.inc();
    return dpopRefusal('invalid_token', 'The credential is unknown, malformed, revoked or expired.');
  }
  noteCaller(request, token, principal);
  if (principal.jkt === undefined) {
    ctx.metrics.authFailure.invalid.inc();
    return dpopRefusal('invalid_token', 'This credential is not DPoP-bound: send it as a Bearer token.');
  }
  const proof = request.headers.dpop;
  if (typeof proof !== 'string' || !credentials.dpop) {
    ctx.metrics.authFailure.invalid.inc();
    return dpopRefusal('invalid_dpop_proof', 'Send one DPoP proof for this call in the DPoP header.');
  }
  const q = request.url.indexOf('?');
  const outcome = await credentials.dpop(ctx, {
    proof,
    method: request.method,
    url: `${ctx.config.publicUrl}${q === -1 ? request.url : request.url.slice(0, q)}`,
    accessToken: token,
  });
  if ('error' in outcome || outcome.jkt !== principal.jkt) {
    ctx.metrics.authFailure.invalid.inc();
    const why =
      'error' in outcome ? outcome.error : 'The DPoP proof is signed by another key than the token’s.';
    return dpopRefusal('invalid_dpop_proof', why);
  }
  return admit(request, token, principal, true);
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
    if (token === '') {
      // Not a Bearer token: perhaps a DPoP-bound one, checked off the Bearer path.
      const dpop = DPOP_SCHEME.exec(request.headers.authorization!);
      if (dpop) {
        dpopAdmit(credentials, request, dpop[1]!).then(done, done);
        return;
      }
    }
    const principal = token ? credentials.resolve(request.server.ctx, token) : undefined;
    if (principal instanceof Promise) {
      principal.then((resolved) => admit(request, token, resolved)).then(done, done);
    } else {
      done(admit(request, token, principal));
    }
  };
}

/** A verified credential names its merchant: the call is in its request log from here on, refused or not. */
function noteCaller(request: FastifyRequest, token: string, principal: PublicPrincipal): void {
  request.caller = {
    merchantId: principal.merchantId,
    mode: principal.mode,
    type: principal.kind,
    id:
      principal.kind === 'access_token'
        ? (principal.appId ?? principal.credentialId)
        : principal.credentialId,
    last4: token.slice(-4),
    installation: principal.installation,
  };
}

/** Sets the request's principal if the credential may make this call; otherwise the error to answer. */
function admit(
  request: FastifyRequest,
  token: string,
  principal: PublicPrincipal | undefined,
  dpop = false,
): AppError | undefined {
  const { metrics } = request.server.ctx;
  if (!principal) {
    metrics.authFailure.invalid.inc();
    return new AppError('invalid_credential', 'The credential is unknown, malformed, revoked or expired.', {
      headers: challenge('invalid_token'),
    });
  }
  noteCaller(request, token, principal);
  // RFC 9449 7.1: a bound token is no bearer token; without its proof it proves nothing.
  if (principal.jkt !== undefined && !dpop) {
    metrics.authFailure.invalid.inc();
    return dpopRefusal(
      'invalid_token',
      'This access token is DPoP-bound: send it as `Authorization: DPoP` with a proof.',
    );
  }
  // An app token opens no store's data: elsewhere than its own routes it is refused as a merchant session
  // is, as no credential of this interface (docs/decisions/0150-app-tokens.md). The route's options are read
  // only for it: their getter builds an object, which a store's credential need not pay for.
  if (principal.appToken === true && request.routeOptions.config.appToken !== true) {
    metrics.authFailure.invalid.inc();
    return new AppError('invalid_credential', 'An app token opens only the app’s own routes (/app/...).', {
      headers: challenge('invalid_token'),
    });
  }
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
  // An app token reaching here is on its own route, which checks what it needs (app:installations).
  if (principal.appToken !== true && !scopeAllows(principal.scopes, request.method)) {
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
