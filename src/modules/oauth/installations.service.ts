// Installations (API.md section 11.1): a grant seen as an app installed on a merchant's store. Its lifecycle
// events are recorded through the outbox module in the transaction of the grant change that they
// announce, so an install, a scope change or an uninstall is told once and only if it happened. An uninstall
// schedules store.redact in the same transaction; a sweep (any process, SKIP LOCKED) records it when due,
// unless a reinstall deleted it first.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import { notFound } from '../../lib/errors.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { appById, intersect, splitScopes, type AppsCache } from '../oauth-apps/index.ts';
import { emitEvent, emitEvents, type Installation, type NewEvent } from '../outbox/index.ts';
import * as repo from './installations.repository.ts';

/** A grant as its events describe it. */
export interface InstallationFacts {
  grantId: string;
  appId: string;
  merchantId: string;
  mode: Mode;
  storeId: string | null;
  /** Effective: granted, within the app's allowed scopes (what the token endpoint reports). */
  scopes: string[];
}

/** What an installation's grant and its app's allowed scopes let it do, as a list of rights. */
export function effectiveScopes(granted: string, allowed: readonly string[]): string[] {
  return intersect(splitScopes(granted), allowed);
}

const sameScopes = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((s) => b.includes(s));

function lifecycleEvent(i: InstallationFacts, type: string, extra: Record<string, unknown>): NewEvent {
  const installation: Installation = { appId: i.appId, grantId: i.grantId, storeId: i.storeId };
  return {
    merchantId: i.merchantId,
    mode: i.mode,
    type,
    installation,
    data: {
      id: i.grantId,
      grant_id: i.grantId,
      app_id: i.appId,
      merchant_id: i.merchantId,
      store_id: i.storeId,
      scopes: i.scopes,
      ...extra,
    },
  };
}

/**
 * After a consent wrote its grant: app.installed for a new installation (and any store.redact of an earlier
 * one cancelled), app.scopes_updated when a new consent changed what an existing one may do, nothing when it
 * did not.
 */
export async function recordConsent(
  trx: Executor,
  i: InstallationFacts,
  previous: { scopes: string[] } | null,
  at: Date,
): Promise<void> {
  if (previous === null) {
    await repo.cancelRedaction(trx, i.appId, i.merchantId);
    await emitEvent(trx, lifecycleEvent(i, 'app.installed', { installed_at: at.toISOString() }), at);
    return;
  }
  if (sameScopes(previous.scopes, i.scopes)) return;
  await emitEvent(
    trx,
    lifecycleEvent(i, 'app.scopes_updated', { previous_scopes: previous.scopes, cause: 'consent' }),
    at,
  );
}

/** Why an installation ended: the merchant disconnected the app, or the app uninstalled itself. */
export type UninstallReason = 'merchant_disconnected' | 'app_requested';

/** After the grant was deleted: app.uninstalled now, store.redact scheduled for later. */
export async function recordUninstall(
  ctx: Context,
  trx: Executor,
  i: InstallationFacts,
  at: Date,
  reason: UninstallReason,
): Promise<void> {
  await emitEvent(
    trx,
    lifecycleEvent(i, 'app.uninstalled', {
      reason,
      uninstalled_at: at.toISOString(),
    }),
    at,
  );
  await repo.scheduleRedaction(trx, {
    app_id: i.appId,
    merchant_id: i.merchantId,
    mode: i.mode,
    grant_id: i.grantId,
    store_id: i.storeId,
    uninstalled_at: at,
    due_at: new Date(at.getTime() + ctx.config.storeRedactAfter * 1000),
  });
}

// Installations read per statement while telling them of a change of their app's allowed scopes.
const SCOPE_CHANGE_PAGE = 1000;

/**
 * After the app's allowed scopes changed (in the caller's transaction): app.scopes_updated to every
 * installation whose effective scopes moved. Proportional to the app's installations, once per change of its
 * settings; read and recorded a thousand at a time.
 */
export async function recordAllowedScopesChange(
  trx: Executor,
  app: { id: string; previous: readonly string[]; current: readonly string[] },
  at: Date,
): Promise<number> {
  let after = '';
  let told = 0;
  for (;;) {
    const grants = await repo.installationsAfter(trx, app.id, after, SCOPE_CHANGE_PAGE);
    const events: NewEvent[] = [];
    for (const g of grants) {
      const before = effectiveScopes(g.scopes, app.previous);
      const now = effectiveScopes(g.scopes, app.current);
      if (sameScopes(before, now)) continue;
      const facts = {
        grantId: g.id,
        appId: app.id,
        merchantId: g.merchant_id,
        mode: g.mode,
        storeId: g.store_id,
        scopes: now,
      };
      events.push(
        lifecycleEvent(facts, 'app.scopes_updated', { previous_scopes: before, cause: 'allowed_scopes' }),
      );
    }
    await emitEvents(trx, events, at);
    told += events.length;
    if (grants.length < SCOPE_CHANGE_PAGE) return told;
    after = grants[grants.length - 1]!.id;
  }
}

// A sweep takes this many due redactions per transaction, and runs again at once while batches come full.
const REDACT_BATCH = 100;

/** Records every store.redact due at the service's clock; returns how many. */
export async function sweepRedactions(ctx: Context): Promise<number> {
  let total = 0;
  for (;;) {
    const now = new Date(ctx.clock.now());
    const done = await ctx.db.transaction().execute(async (trx) => {
      const due = await repo.takeDueRedactions(trx, now, REDACT_BATCH);
      await emitEvents(
        trx,
        due.map((r) => ({
          merchantId: r.merchant_id,
          mode: r.mode,
          type: 'store.redact',
          installation: { appId: r.app_id, grantId: r.grant_id, storeId: r.store_id },
          appOnly: true,
          data: {
            id: r.grant_id,
            grant_id: r.grant_id,
            app_id: r.app_id,
            merchant_id: r.merchant_id,
            store_id: r.store_id,
            uninstalled_at: r.uninstalled_at.toISOString(),
          },
        })),
        now,
      );
      return due.length;
    });
    total += done;
    if (done < REDACT_BATCH) return total;
  }
}

/**
 * The sweep's loop: at least every min(60 s, SVC_STORE_REDACT_AFTER / 2), so a store.redact is recorded at
 * most that late (as cart abandonment).
 */
export function redactionLoop(ctx: Context): Loop {
  return new Loop({
    name: 'store.redact sweep',
    everyMs: Math.max(100, Math.min(60, ctx.config.storeRedactAfter / 2) * 1000),
    runAtStart: true,
    run: () => sweepRedactions(ctx).then(() => undefined),
    onError: warnOnFailure(ctx.log),
  });
}

/**
 * For the app's developer: the stores that installed the app, newest first. An app of another merchant or of
 * the other mode is not found, as every merchant resource.
 */
export async function listInstallations(
  apps: AppsCache,
  ctx: Context,
  scope: Scope,
  input: PageInput & { appId: string },
) {
  const app = await appById(apps, ctx, input.appId);
  if (!app || app.merchantId !== scope.merchantId || app.mode !== scope.mode) throw notFound('app');
  return mapPage(await repo.listInstallations(ctx.db, app.id, input), (r) => ({
    id: r.id,
    merchant_id: r.merchant_id,
    store: r.store_id && r.store_name !== null ? { id: r.store_id, name: r.store_name } : null,
    scopes: effectiveScopes(r.scopes, app.allowedScopes),
    mode: r.mode,
    installed_at: iso(r.created_at),
    last_used_at: iso(r.last_used_at),
  }));
}
