// The authorization endpoint and the consent decision (RFC 6749 4.1.1-4.1.2, RFC 7636, RFC 9207, RFC 9700
// 2.1 and 4.1). Errors that cannot be trusted to a redirect (unknown client, unregistered redirect URI) are
// shown on our own page; every other error goes back to the app with `state` and `iss`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from '../../context.ts';
import { makeCredential } from '../../lib/credentials.ts';
import { newId } from '../../lib/ids.ts';
import { uriTextIssue } from '../../lib/uri.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import {
  appById,
  clientById,
  type AppsCache,
  isScope,
  joinScopes,
  splitScopes,
  within,
  type ClientApp,
} from '../oauth-apps/index.ts';
import { installedStoreId } from '../merchants/index.ts';
import * as oauth from '../oauth/index.ts';
import type { AuthorizeState } from './authorize.state.ts';
import { userActor, type RequestMeta } from '../../http/request.ts';

const CONSENT_TTL_MS = 10 * 60_000;
// RFC 7636 4.2: the S256 challenge is base64url(SHA-256) without padding, 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface AuthorizationRequest {
  app: ClientApp;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string;
}

export type AuthorizeCheck =
  | { kind: 'page'; title: string; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'ok'; request: AuthorizationRequest };

/** Appends the response parameters without touching the registered URI's own text (exact match, 9700 2.1). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.append(k, v);
  return `${uri}${uri.includes('?') ? '&' : '?'}${query.toString()}`;
}

function single(query: Record<string, unknown>, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : null; // null: repeated (RFC 6749 3.1 forbids it)
}

export async function checkAuthorizationRequest(
  apps: AppsCache,
  ctx: Context,
  query: Record<string, unknown>,
): Promise<AuthorizeCheck> {
  const clientId = single(query, 'client_id');
  const app = clientId ? await clientById(apps, ctx, clientId) : undefined;
  if (!app) {
    return {
      kind: 'page',
      title: 'Unknown app',
      message: 'This link does not name a registered app (client_id is missing or unknown).',
    };
  }
  const redirectUri = single(query, 'redirect_uri');
  // A URI registered before redirect URIs were checked as text may not be sendable as a Location header:
  // such a one is shown on our page, like an unregistered one, before anything is written.
  if (!redirectUri || !app.redirectUris.includes(redirectUri) || uriTextIssue(redirectUri)) {
    return {
      kind: 'page',
      title: 'Invalid redirect URI',
      message: `The redirect_uri is missing or is not one that ${app.name} registered. For your safety you were not sent back to the app.`,
    };
  }
  const rawState = single(query, 'state');
  const state = typeof rawState === 'string' ? rawState : undefined;
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    location: withParams(redirectUri, {
      error,
      error_description: description,
      state,
      iss: ctx.config.publicUrl,
    }),
  });

  for (const name of ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
    if (single(query, name) === null) return fail('invalid_request', `${name} must be given once.`);
  }
  const responseType = single(query, 'response_type');
  if (!responseType) return fail('invalid_request', 'response_type is required.');
  if (responseType !== 'code')
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (!challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with S256.');
  if (method !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
  }
  if (!S256_CHALLENGE.test(challenge)) {
    return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256).');
  }
  const scopeText = single(query, 'scope');
  const scopes = scopeText ? splitScopes(scopeText) : [...app.allowedScopes];
  if (scopes.length === 0 || !scopes.every(isScope)) {
    return fail('invalid_scope', 'scope holds an unknown scope; use public:read, public:write or public:*.');
  }
  if (!within(scopes, app.allowedScopes)) {
    return fail(
      'invalid_scope',
      `scope asks for more than the app may have (${app.allowedScopes.join(' ')}).`,
    );
  }
  return {
    kind: 'ok',
    request: { app, redirectUri, scopes: [...new Set(scopes)], state, codeChallenge: challenge },
  };
}

export async function openConsent(
  ctx: Context,
  request: AuthorizationRequest,
  merchantId: string,
): Promise<string> {
  const now = ctx.clock.now();
  const id = newId('consent', now);
  await oauth.insertConsent(ctx.db, {
    id,
    app_id: request.app.id,
    merchant_id: merchantId,
    redirect_uri: request.redirectUri,
    scopes: joinScopes(request.scopes),
    state: request.state ?? null,
    code_challenge: request.codeChallenge,
    expires_at: new Date(now + CONSENT_TTL_MS),
  });
  return id;
}

function csrfKey(ctx: Context): Buffer {
  return createHmac('sha256', ctx.config.masterKey).update('svc oauth consent csrf v1').digest();
}

/** Ties a consent form to the session that opened it. */
export function consentCsrfToken(ctx: Context, consentId: string, sessionId: string): string {
  return createHmac('sha256', csrfKey(ctx)).update(`${consentId}.${sessionId}`).digest('base64url');
}

export function csrfTokenValid(ctx: Context, consentId: string, sessionId: string, token: string): boolean {
  const expected = Buffer.from(consentCsrfToken(ctx, consentId, sessionId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface Decider {
  merchantId: string;
  userId: string;
  email: string;
}

/**
 * `undefined` when the consent is unknown, expired, already decided or another merchant's. An approval
 * records the grant and its lifecycle event (app.installed, or app.scopes_updated) in one transaction.
 */
export async function decideConsent(
  state: Pick<AuthorizeState, 'apps' | 'tokens' | 'firstStores'>,
  ctx: Context,
  who: Decider,
  consentId: string,
  approve: boolean,
  meta: RequestMeta,
): Promise<string | undefined> {
  // The app and the store are read before the transaction: the app cache and the store memo read through
  // the root connection, which on PGlite would wait for the transaction that holds it.
  const pending = await oauth.findConsent(ctx.db, who.merchantId, consentId);
  // Nothing is consumed or written unless the answer's redirect can be sent.
  if (!pending || uriTextIssue(pending.redirect_uri)) return undefined;
  const app = await appById(state.apps, ctx, pending.app_id);
  if (!app) return undefined;
  const storeId = approve ? ((await installedStoreId(state.firstStores, ctx, who.merchantId)) ?? null) : null;
  let changedGrant: string | undefined;
  const now = ctx.clock.now();
  const location = await ctx.db.transaction().execute(async (trx) => {
    const consent = await oauth.takeConsent(trx, who.merchantId, consentId, new Date(now));
    if (!consent || consent.app_id !== app.id) return undefined;
    const audit: AuditContext = {
      merchantId: who.merchantId,
      mode: app.mode,
      actor: userActor(who),
      ...meta,
      clock: ctx.clock,
    };
    const iss = ctx.config.publicUrl;
    const returned = consent.state ?? undefined;
    if (!approve) {
      await writeAudit(trx, audit, {
        action: 'oauth.consent_denied',
        entityType: 'oauth_grant',
        entityId: app.id,
        fields: { app_id: app.id, client_id: app.clientId, scope: consent.scopes },
      });
      return withParams(consent.redirect_uri, {
        error: 'access_denied',
        error_description: 'The merchant denied the request.',
        state: returned,
        iss,
      });
    }
    const grant = await oauth.writeGrant(trx, {
      id: newId('grant', now),
      app_id: app.id,
      merchant_id: who.merchantId,
      mode: app.mode,
      scopes: consent.scopes,
      store_id: storeId,
    });
    const grantId = grant.id;
    await oauth.recordConsent(
      trx,
      {
        grantId,
        appId: app.id,
        merchantId: who.merchantId,
        mode: app.mode,
        storeId,
        scopes: oauth.effectiveScopes(consent.scopes, app.allowedScopes),
      },
      grant.previousScopes === null
        ? null
        : { scopes: oauth.effectiveScopes(grant.previousScopes, app.allowedScopes) },
      new Date(now),
    );
    const code = makeCredential('authorization_code');
    await oauth.insertCode(trx, {
      hash: code.hash,
      grant_id: grantId,
      app_id: app.id,
      merchant_id: who.merchantId,
      mode: app.mode,
      redirect_uri: consent.redirect_uri,
      scopes: consent.scopes,
      code_challenge: consent.code_challenge,
      family_id: newId('tok', now),
      // the rotation cut (`tokens_valid_after`) compares the code's creation on the same clock
      created_at: new Date(now),
      expires_at: new Date(now + ctx.config.oauth.codeTtl * 1000),
    });
    await writeAudit(trx, audit, {
      action: 'oauth.consent_approved',
      entityType: 'oauth_grant',
      entityId: grantId,
      fields: { app_id: app.id, client_id: app.clientId, scope: consent.scopes },
    });
    // A new consent replaces the grant's scopes: every token of the grant is bound by them at once, on
    // every process (API.md section 5).
    await oauth.announceGrantChange(trx, grantId);
    changedGrant = grantId;
    return withParams(consent.redirect_uri, { code: code.token, state: returned, iss });
  });
  if (changedGrant) oauth.forgetGrant(state.tokens, changedGrant);
  return location;
}
