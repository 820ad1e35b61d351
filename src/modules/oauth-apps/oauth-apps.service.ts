// OAuth apps (API.md section 3): a merchant registers an app that any merchant may then install. The client
// secret is shown once (create, rotate) and stored as SHA-256. Every change notifies the app cache of every
// process in its transaction; deletion cascades to grants, codes and tokens in the database.
import type { Context } from '../../context.ts';
import { makeCredential, randomBase62 } from '../../lib/credentials.ts';
import { AppError, invalid, notFound, type ErrorDetail } from '../../lib/errors.ts';
import { publicJwk } from '../../lib/jws.ts';
import type { TokenEndpointAuthMethod } from './oauth-apps.table.ts';
import { newId } from '../../lib/ids.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { uriTextIssue } from '../../lib/uri.ts';
import { logSecurityChange, writeAudit, type AuditContext } from '../audit/index.ts';
import { announceAppChange, forgetApp, type AppsCache } from './oauth-apps.cache.ts';
import * as repo from './oauth-apps.repository.ts';
import { joinScopes, splitScopes } from '../../lib/scopes.ts';
import type { Executor } from '../../db/database.ts';

/**
 * What happens elsewhere in the transaction of an app change, supplied by the composition (src/modules.ts):
 * the oauth module tells the installations of a change of scopes, the webhooks module retires the app's
 * webhooks with it. Hooks rather than imports: those modules depend on this one.
 */
export interface AppHooks {
  /** The app's allowed scopes changed: its installations' effective scopes may have too. */
  readonly allowedScopesChanged?: (
    trx: Executor,
    app: { id: string; previous: readonly string[]; current: readonly string[] },
    at: Date,
  ) => Promise<unknown>;
  /** The app is deleted: the webhooks that heard its installations go with it; answers how many. */
  readonly deleting?: (trx: Executor, appId: string, at: Date) => Promise<number>;
}

const LOOPBACK: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export function presentApp(row: repo.AppRow) {
  return {
    id: row.id,
    client_id: row.client_id,
    name: row.name,
    description: row.description,
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    allowed_scopes: splitScopes(row.allowed_scopes),
    mode: row.mode,
    client_secret_last4: row.secret_last4,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    jwks: row.jwks === null ? null : (JSON.parse(row.jwks) as { keys: { kty: string }[] }),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Why a redirect URI is refused (RFC 9700 2.1: exact match, no fragment; RFC 8252 8.3: loopback http). */
export function redirectUriIssue(raw: string): string | undefined {
  const text = uriTextIssue(raw);
  if (text) return text;
  if (raw.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.protocol === 'https:') return url.hostname ? undefined : 'must name a host';
  if (url.protocol === 'http:') {
    return LOOPBACK.includes(url.hostname) ? undefined : 'must use https (http only for localhost)';
  }
  return 'must use https (http only for localhost)';
}

function checkRedirectUris(uris: readonly string[]): void {
  const details: ErrorDetail[] = [];
  uris.forEach((uri, i) => {
    const issue = redirectUriIssue(uri);
    if (issue) details.push({ field: `redirect_uris[${i}]`, issue });
  });
  const first = details[0];
  if (first) {
    throw new AppError('validation_failed', `${first.field} ${first.issue}.`, { details });
  }
}

function newClientId(): string {
  return `svc_ca_${randomBase62(24)}`;
}

export interface CreateApp {
  name: string;
  description?: string | null | undefined;
  redirect_uris: string[];
  allowed_scopes: string[];
}

export async function createApp(ctx: Context, audit: AuditContext, input: CreateApp) {
  checkRedirectUris(input.redirect_uris);
  const secret = makeCredential('client_secret', audit.mode);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const row = await repo.insertApp(trx, {
      id: newId('app', now),
      merchant_id: audit.merchantId,
      mode: audit.mode,
      client_id: newClientId(),
      name: input.name,
      description: input.description ?? null,
      redirect_uris: JSON.stringify(input.redirect_uris),
      allowed_scopes: joinScopes(input.allowed_scopes),
      secret_hash: secret.hash,
      secret_last4: secret.last4,
      // codes and tokens made before it are refused: compared with their creation on the same clock
      tokens_valid_after: new Date(now),
    });
    await writeAudit(trx, audit, {
      action: 'developer_app.created',
      entityType: 'developer_app',
      entityId: row.id,
      fields: {
        name: row.name,
        client_id: row.client_id,
        redirect_uris: input.redirect_uris,
        allowed_scopes: input.allowed_scopes,
      },
    });
    return { ...presentApp(row), client_secret: secret.token };
  });
}

export async function listApps(ctx: Context, scope: Scope, input: PageInput) {
  return mapPage(await repo.listApps(ctx.db, scope, input), presentApp);
}

export async function getApp(ctx: Context, scope: Scope, appId: string) {
  const row = await repo.findApp(ctx.db, scope, appId);
  if (!row) throw notFound('app');
  return presentApp(row);
}

export interface UpdateApp {
  name?: string | undefined;
  description?: string | null | undefined;
  redirect_uris?: string[] | undefined;
  allowed_scopes?: string[] | undefined;
  token_endpoint_auth_method?: TokenEndpointAuthMethod | undefined;
  jwks?: { keys: Record<string, unknown>[] } | null | undefined;
}

/** The JWKS as stored, each key checked (public, of a type we verify), or 400 naming every refused key. */
function checkJwks(jwks: { keys: Record<string, unknown>[] }): string {
  const details: ErrorDetail[] = [];
  jwks.keys.forEach((jwk, i) => {
    const checked = publicJwk(jwk);
    if ('issue' in checked) details.push({ field: `jwks.keys[${i}]`, issue: checked.issue });
  });
  const first = details[0];
  if (first) throw new AppError('validation_failed', `${first.field} ${first.issue}.`, { details });
  return JSON.stringify({ keys: jwks.keys });
}

/** The method and keys an update leaves: private_key_jwt needs keys to verify with. */
function authChanges(current: repo.AppRow, input: UpdateApp) {
  const jwks = input.jwks === undefined ? undefined : input.jwks === null ? null : checkJwks(input.jwks);
  const method = input.token_endpoint_auth_method ?? current.token_endpoint_auth_method;
  if (method === 'private_key_jwt' && (jwks === undefined ? current.jwks : jwks) === null) {
    throw invalid('jwks', 'is required while token_endpoint_auth_method is private_key_jwt');
  }
  return {
    ...(input.token_endpoint_auth_method ? { token_endpoint_auth_method: method } : {}),
    ...(jwks !== undefined ? { jwks } : {}),
  };
}

export async function updateApp(
  apps: AppsCache,
  hooks: AppHooks,
  ctx: Context,
  audit: AuditContext,
  appId: string,
  input: UpdateApp,
) {
  if (input.redirect_uris) checkRedirectUris(input.redirect_uris);
  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findApp(trx, audit, appId);
    if (!current) throw notFound('app');
    const row = await repo.updateApp(trx, audit.merchantId, appId, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.redirect_uris ? { redirect_uris: JSON.stringify(input.redirect_uris) } : {}),
      ...(input.allowed_scopes ? { allowed_scopes: joinScopes(input.allowed_scopes) } : {}),
      ...authChanges(current, input),
    });
    if (!row) throw notFound('app');
    const previous = splitScopes(current.allowed_scopes);
    if (input.allowed_scopes && joinScopes(previous) !== row.allowed_scopes) {
      await hooks.allowedScopesChanged?.(
        trx,
        { id: row.id, previous, current: splitScopes(row.allowed_scopes) },
        new Date(ctx.clock.now()),
      );
    }
    await writeAudit(trx, audit, {
      action: 'developer_app.updated',
      entityType: 'developer_app',
      entityId: row.id,
      fields: {
        changed: Object.keys(input).filter((k) => input[k as keyof UpdateApp] !== undefined),
        ...input,
      },
    });
    // Narrowed scopes and removed redirect URIs must bind every process at once.
    await announceAppChange(trx, row.id);
    return presentApp(row);
  });
  forgetApp(apps, appId);
  return result;
}

export async function rotateAppSecret(
  apps: AppsCache,
  ctx: Context,
  audit: AuditContext,
  appId: string,
  previousExpiresIn: number,
) {
  const secret = makeCredential('client_secret', audit.mode);
  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findApp(trx, audit, appId);
    if (!current) throw notFound('app');
    const previous =
      previousExpiresIn > 0
        ? { hash: current.secret_hash, expiresAt: new Date(ctx.clock.now() + previousExpiresIn * 1000) }
        : null;
    const row = await repo.rotateSecret(trx, audit.merchantId, appId, secret, previous);
    if (!row) throw notFound('app');
    await writeAudit(trx, audit, {
      action: 'developer_app.secret_rotated',
      entityType: 'developer_app',
      entityId: row.id,
      fields: {
        client_id: row.client_id,
        previous_secret_expires_in: previousExpiresIn,
        previous_secret_expires_at: previous ? iso(previous.expiresAt) : null,
        // Installs survive (API.md section 3): the app refreshes with the new secret. Delete the app, or
        // merchants disconnect it, to cut them.
        tokens_revoked: false,
      },
    });
    // Every process drops the cached app, so the old secret is refused everywhere at once.
    await announceAppChange(trx, row.id);
    return { ...presentApp(row), client_secret: secret.token };
  });
  forgetApp(apps, appId);
  return result;
}

export async function deleteApp(
  apps: AppsCache,
  hooks: AppHooks,
  ctx: Context,
  audit: AuditContext,
  appId: string,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.deleteApp(trx, audit, appId);
    if (!row) throw notFound('app');
    const webhooks = (await hooks.deleting?.(trx, row.id, new Date(ctx.clock.now()))) ?? 0;
    await writeAudit(trx, audit, {
      action: 'developer_app.deleted',
      entityType: 'developer_app',
      entityId: row.id,
      fields: { name: row.name, client_id: row.client_id, webhooks_deleted: webhooks },
    });
    await announceAppChange(trx, row.id);
  });
  forgetApp(apps, appId);
  logSecurityChange(ctx, audit, 'OAuth app deleted: its tokens stop working', { app_id: appId });
}
