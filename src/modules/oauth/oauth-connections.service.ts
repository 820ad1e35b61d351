// Connections (API.md section 3): the grants through which apps reach a merchant's data, as that merchant
// sees them. Disconnecting deletes the grant, which cascades to its codes and tokens.
import type { Context } from '../../context.ts';
import type { Mode } from '../../lib/credentials.ts';
import { notFound } from '../../lib/errors.ts';
import { iso } from '../../lib/time.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { logSecurityChange, writeAudit, type AuditContext } from '../audit/index.ts';
import { appById, rights, splitScopes, type AppsCache } from '../oauth-apps/index.ts';
import { eventsOfInstallations } from '../outbox/index.ts';
import { effectiveScopes, recordUninstall } from './installations.service.ts';
import { announceGrantRevocation, forgetGrant, type AccessTokens } from './oauth-bearer.service.ts';
import * as repo from './grants.repository.ts';

/** Each connection with `events`: what its app receives from this merchant now, never where it goes. */
export async function listConnections(ctx: Context, scope: Scope, input: PageInput) {
  const grants = await repo.listGrants(ctx.db, scope, input);
  const events = await eventsOfInstallations(
    ctx.db,
    scope.mode,
    grants.items.map((r) => ({
      appId: r.app_id,
      reads: rights(effectiveScopes(r.scopes, splitScopes(r.allowed_scopes))).has('read'),
    })),
  );
  const byGrant = new Map(grants.items.map((r, i) => [r.id, events[i]!]));
  return mapPage(grants, (r) => ({
    id: r.id,
    app: { id: r.app_id, name: r.app_name, client_id: r.client_id, developer_name: r.developer_name },
    scopes: splitScopes(r.scopes),
    events: byGrant.get(r.id)!,
    mode: r.mode,
    created_at: iso(r.created_at),
    last_used_at: iso(r.last_used_at),
  }));
}

/** Grants are in the mode of their app: the request's mode selects them, as for every merchant resource. */
export async function disconnect(
  ctx: Context,
  tokens: AccessTokens,
  audit: AuditContext,
  grantId: string,
): Promise<void> {
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      const grant = await repo.deleteGrant(trx, audit, grantId);
      if (!grant) throw notFound('connection');
      await recordUninstall(
        ctx,
        trx,
        {
          grantId: grant.id,
          appId: grant.app_id,
          merchantId: grant.merchant_id,
          mode: grant.mode,
          storeId: grant.store_id,
          scopes: effectiveScopes(grant.scopes, splitScopes(grant.allowed_scopes ?? '')),
        },
        new Date(ctx.clock.now()),
        'merchant_disconnected',
      );
      await writeAudit(trx, audit, {
        action: 'oauth.connection_revoked',
        entityType: 'oauth_grant',
        entityId: grant.id,
        fields: { app_id: grant.app_id, scope: grant.scopes },
      });
      await announceGrantRevocation(trx, grant.id);
      return grant;
    })
    .then((grant) =>
      logSecurityChange(ctx, audit, 'OAuth grant revoked by the merchant', {
        grant_id: grant.id,
        app_id: grant.app_id,
      }),
    );
  forgetGrant(tokens, grantId);
}

/**
 * For the app's developer: how many stores installed the app (one grant per installing merchant). An app
 * of another merchant or of the other mode is not found, as every merchant resource.
 */
export async function countInstalls(
  apps: AppsCache,
  ctx: Context,
  merchantId: string,
  mode: Mode,
  appId: string,
) {
  const app = await appById(apps, ctx, appId);
  if (!app || app.merchantId !== merchantId || app.mode !== mode) throw notFound('app');
  return { app_id: app.id, stores: await repo.countGrantsOfApp(ctx.db, app.id) };
}
