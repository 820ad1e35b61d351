// What a request carries once the shared hooks ran: its mode, and the merchant or public principal.
import type { FastifyRequest } from 'fastify';
import type { Mode } from '../lib/credentials.ts';
import { AppError } from '../lib/errors.ts';
import type { Scope } from '../lib/scope.ts';
import type { Clock } from '../lib/time.ts';
import type { Role } from './roles.ts';

export interface Actor {
  type: 'user' | 'app' | 'system';
  id: string;
  /** A user's email beside its id, so that an entry read years later still says who (API.md section 11.2). */
  email?: string;
}

/** Who acts and the request it came in on, whoever's log the entry goes to. */
export interface AuditActor {
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** The service's clock: it stamps each entry when it is made (a listener's close, hours after its open). */
  clock: Clock;
}

/** Who acts, for which merchant and mode, and the request it came in on: what an audit entry records. */
export interface AuditContext extends Scope, AuditActor {}

/** The signed-in member: a session of one membership (a user in a merchant, with its role). */
export interface MerchantPrincipal {
  merchantId: string;
  userId: string;
  email: string;
  role: Role;
  sessionId: string;
  /** The user has a second factor; its session verified one at this time (epoch ms), if ever. */
  hasFactor: boolean;
  steppedUpAt: number | null;
  /** The merchant requires a second factor of every member (API.md section 11.3). */
  requireMfa: boolean;
  via: 'bearer' | 'cookie';
}

export type CredentialKind = 'secret_key' | 'publishable_key' | 'access_token';

/** The installation an access token acts through: the app, its owner and the store (API.md section 12.3). */
export interface AppInstallation {
  appId: string;
  /** The merchant that owns the app: the app's calls are in its request log too. */
  ownerId: string;
  storeId: string | null;
}

export interface PublicPrincipal {
  merchantId: string;
  mode: Mode;
  kind: CredentialKind;
  /** The key pair or the OAuth grant the credential belongs to. */
  credentialId: string;
  scopes: readonly string[];
  /** For access tokens: the app acting. */
  appId?: string;
  /** For access tokens: the installation, for the request log of the app's owner. */
  installation?: AppInstallation;
  /**
   * An app token (client_credentials): the app itself, on no store's behalf. Only the routes that declare
   * `config.appToken` take it; every other public route refuses it as an unknown credential.
   */
  appToken?: true;
  /** A DPoP-bound access token (RFC 9449): the thumbprint of the key every call's proof must be signed by. */
  jkt?: string;
  /** When the credential was made (epoch ms): introspection's `iat`. */
  issuedAt: number;
  /** When it stops working on its own (epoch ms), if it does: introspection's `exp`. */
  expiresAt?: number;
}

/**
 * Whom a public call is recorded for in the request log (API.md section 11.6): the merchant and mode its
 * credential names, and the credential as the log shows it, never the credential itself. Set once the
 * credential verifies, before the checks that may still refuse the call (mode, scope, origin).
 */
export interface Caller {
  merchantId: string;
  mode: Mode;
  /** `client_secret`: an app authenticating at the OAuth token, revoke or introspection endpoint. */
  type: CredentialKind | 'client_secret';
  /** The key pair (`key_...`), or the app (`app_...`) of an access token or a client secret. */
  id: string;
  /** The last four characters of the credential sent. */
  last4: string;
  /** An access token's installation: the call is recorded for the app's owner as well. */
  installation?: AppInstallation | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The credential the call verified with, for the request log; null until one did. */
    caller: Caller | null;
    /** The mode of API.md section 1: the X-Svc-Mode header, `test` when absent (merchant interface). */
    mode: Mode;
    /** The X-Svc-Mode header as sent, if it was. */
    modeHeader: Mode | undefined;
    merchant: MerchantPrincipal | null;
    principal: PublicPrincipal | null;
  }
}

export function merchantOf(request: FastifyRequest): MerchantPrincipal {
  if (!request.merchant) throw new AppError('unauthenticated', 'Sign in first.');
  return request.merchant;
}

export function principalOf(request: FastifyRequest): PublicPrincipal {
  if (!request.principal) throw new AppError('unauthenticated', 'Send a credential as a Bearer token.');
  return request.principal;
}

/** The tenant a merchant-interface request acts for: the signed-in merchant in the request's mode. */
export function merchantScope(request: FastifyRequest): Scope {
  return { merchantId: merchantOf(request).merchantId, mode: request.mode };
}

/** The audit context of a merchant-interface request: the signed-in user acting in the request's mode. */
export function auditContext(request: FastifyRequest): AuditContext {
  const merchant = merchantOf(request);
  return {
    merchantId: merchant.merchantId,
    mode: request.mode,
    actor: userActor(merchant),
    ...requestMeta(request),
    clock: request.server.ctx.clock,
  };
}

/** The signed-in user as an audit entry's actor: its id and its email. */
export const userActor = (user: { userId: string; email: string }): Actor => ({
  type: 'user',
  id: user.userId,
  email: user.email,
});

/** Where a request came from, as the audit log and the security log lines record it. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

export function requestMeta(request: FastifyRequest): RequestMeta {
  return {
    ip: request.ip ?? null,
    userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
    requestId: request.id,
  };
}
