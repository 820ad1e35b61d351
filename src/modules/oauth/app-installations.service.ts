// The app's side of its installations (API.md section 12.3): with an app token (client_credentials) an app
// lists the stores that installed it and uninstalls itself from one. An uninstall is a disconnection seen from
// the other side: the grant goes with its codes and tokens (the cascade), every process forgets its tokens at
// the commit, app.uninstalled says `app_requested`, store.redact is scheduled, and the installing merchant's
// audit log records it with the app as the actor.
import type { Context } from '../../context.ts';
import type { RequestMeta } from '../../http/request.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { mapPage, type PageInput } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { logSecurityChange, writeAudit, type AuditContext } from '../audit/index.ts';
import { appById, splitScopes, type AppsCache, type ClientApp } from '../oauth-apps/index.ts';
import * as grants from './grants.repository.ts';
import { effectiveScopes, recordUninstall } from './installations.service.ts';
import { listInstallations } from './installations.repository.ts';
import { announceGrantRevocation, forgetGrant, type AccessTokens } from './oauth-bearer.service.ts';

/** The app an app token names; gone between the bearer check and here, it is as if the token were. */
async function appOf(apps: AppsCache, ctx: Context, appId: string): Promise<ClientApp> {
  const app = await appById(apps, ctx, appId);
  if (!app)
    throw new AppError('invalid_credential', 'The credential is unknown, malformed, revoked or expired.');
  return app;
}

/**
 * The app's active installations, newest first, each with what it may do now. Scoped by the app its token
 * names, not by a merchant's Scope: not one of the `list*` services of test/foundation/list-signatures.test.ts.
 */
export async function installationsOfApp(apps: AppsCache, ctx: Context, appId: string, page: PageInput) {
  const app = await appOf(apps, ctx, appId);
  return mapPage(await listInstallations(ctx.db, app.id, page), (r) => ({
    grant_id: r.id,
    merchant_id: r.merchant_id,
    store_id: r.store_id,
    mode: r.mode,
    scopes: effectiveScopes(r.scopes, app.allowedScopes),
    installed_at: iso(r.created_at),
    last_used_at: iso(r.last_used_at),
  }));
}

/** The app leaves one store. Another app's grant, or none, is not found, as every resource not the caller's. */
export async function uninstallByApp(
  apps: AppsCache,
  tokens: AccessTokens,
  ctx: Context,
  appId: string,
  grantId: string,
  meta: RequestMeta,
): Promise<void> {
  const app = await appOf(apps, ctx, appId);
  const audit = await ctx.db.transaction().execute(async (trx) => {
    const grant = await grants.deleteGrant(trx, { appId: app.id }, grantId);
    if (!grant) throw notFound('installation');
    await recordUninstall(
      ctx,
      trx,
      {
        grantId: grant.id,
        appId: app.id,
        merchantId: grant.merchant_id,
        mode: grant.mode,
        storeId: grant.store_id,
        scopes: effectiveScopes(grant.scopes, splitScopes(grant.allowed_scopes ?? '')),
      },
      new Date(ctx.clock.now()),
      'app_requested',
    );
    // In the log of the merchant whose data the grant opened (API.md section 8), the app as the actor.
    const audit: AuditContext = {
      merchantId: grant.merchant_id,
      mode: grant.mode,
      actor: { type: 'app', id: app.id },
      ...meta,
      clock: ctx.clock,
    };
    await writeAudit(trx, audit, {
      action: 'oauth.connection_revoked',
      entityType: 'oauth_grant',
      entityId: grant.id,
      fields: { app_id: app.id, client_id: app.clientId, scope: grant.scopes, reason: 'app_requested' },
    });
    await announceGrantRevocation(trx, grant.id);
    return audit;
  });
  forgetGrant(tokens, grantId);
  logSecurityChange(ctx, audit, 'OAuth grant ended by its app', { grant_id: grantId, app_id: app.id });
}
