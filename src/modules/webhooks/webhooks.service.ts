// Webhook subscriptions (API.md section 7): each change and its audit entry commit together.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, invalid, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { decryptSecret, encryptSecret } from '../../lib/secrets.ts';
import type { Page, PageInput, Scope } from '../../lib/scope.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { confirmPassword, type PasswordCheck, type SignInLimits } from '../identity/index.ts';
import { appById, type AppsCache } from '../oauth-apps/index.ts';
import type { WebhookOrdering } from './webhooks.table.ts';
import { presentWebhook } from './webhooks.presenters.ts';
import * as repo from './webhooks.repository.ts';
import { checkEvents, checkUrl } from './webhook-rules.ts';
import { checkFilter, type PayloadFilter } from './payload-filter.ts';
import { newWebhookSecret } from './signing.ts';

export type Webhook = ReturnType<typeof presentWebhook>;

/**
 * What a change of a subscription does to its deliveries, in the change's transaction: the delivery module's
 * functions, which src/modules.ts supplies (that module reads webhooks through this one, so this one does not
 * import it).
 */
export interface DeliveryHooks {
  /** Pending deliveries of the webhook that no worker holds at `now` are cancelled; answers how many. */
  cancelPending(trx: Executor, webhookId: string, now: Date): Promise<number>;
  /** Sets or clears the webhook's rate_limit (its pace row). */
  setRateLimit(trx: Executor, webhookId: string, limit: number | null): Promise<void>;
}

/** URLs go to the audit log without userinfo or query, where endpoints sometimes carry a token. */
function loggableUrl(raw: string): string {
  const url = new URL(raw);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** A filter as its jsonb column takes it: written as JSON text, so both drivers store the same value. */
const filterColumn = (filter: PayloadFilter | null) =>
  (filter === null ? null : JSON.stringify(filter)) as unknown as PayloadFilter | null;

const DAY_MS = 86_400_000;
const dayBefore = (now: Date) => new Date(now.getTime() - DAY_MS);

/** The webhook as the API shows it, with the health of its last day before `now`. */
async function presentOne(db: Executor, scope: Scope, id: string, now: Date): Promise<Webhook> {
  const view = await repo.viewWebhook(db, scope, id, dayBefore(now));
  if (!view) throw notFound('webhook');
  return presentWebhook(view);
}

const scopeOf = (of: Scope): Scope => ({ merchantId: of.merchantId, mode: of.mode });

async function locked(trx: Executor, audit: AuditContext, id: string): Promise<repo.WebhookRow> {
  const row = await repo.lockWebhook(trx, scopeOf(audit), id);
  if (!row) throw notFound('webhook');
  return endpointOnly(row);
}

/** A listener belongs to its `svc listen` stream: it is changed, resent to or retried only through it. */
function endpointOnly(row: repo.WebhookRow): repo.WebhookRow {
  if (row.kind === 'listener')
    throw new AppError('conflict', 'This is a listener of `svc listen`: it closes with its stream.');
  return row;
}

function audited(
  trx: Executor,
  audit: AuditContext,
  action: string,
  id: string,
  fields?: Record<string, unknown>,
) {
  return writeAudit(trx, audit, {
    action,
    entityType: 'webhook',
    entityId: id,
    ...(fields ? { fields } : {}),
  });
}

/**
 * An app webhook's (or an app stream's) app: one of the caller's, in the request's mode (API.md 11.1), or a
 * validation error naming `app_id`.
 */
export async function checkOwnApp(
  ctx: Context,
  apps: AppsCache,
  audit: AuditContext,
  appId: string,
): Promise<string> {
  const app = await appById(apps, ctx, appId);
  if (!app || app.merchantId !== audit.merchantId || app.mode !== audit.mode)
    throw invalid('app_id', `is not an app of this account in ${audit.mode} mode`);
  return app.id;
}

/** What a merchant sets of a webhook's delivery (API.md section 11.4). */
interface DeliveryRules {
  rate_limit?: number | null | undefined;
  ordering?: WebhookOrdering | undefined;
  /** Unchecked as it came: checkFilter (payload-filter.ts) names every faulty condition. */
  filter?: unknown;
}

export async function createWebhook(
  ctx: Context,
  deliveries: DeliveryHooks,
  apps: AppsCache,
  audit: AuditContext,
  input: {
    url: string;
    events: string[];
    description?: string | undefined;
    app_id?: string | undefined;
  } & DeliveryRules,
): Promise<Webhook & { secret: string }> {
  const events = checkEvents(input.events);
  const filter = input.filter === undefined ? null : checkFilter(input.filter);
  const url = await checkUrl(ctx.config, audit.mode, input.url);
  const appId = input.app_id === undefined ? null : await checkOwnApp(ctx, apps, audit, input.app_id);
  const secret = newWebhookSecret();
  return ctx.db.transaction().execute(async (trx) => {
    const now = new Date(ctx.clock.now());
    const row = await repo.insertWebhook(trx, {
      id: newId('wh', now.getTime()),
      merchant_id: audit.merchantId,
      mode: audit.mode,
      url,
      events,
      description: input.description ?? null,
      app_id: appId,
      disabled_reason: null,
      secret_sealed: encryptSecret(ctx.config.masterKey, secret),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      failing_since: null,
      deleted_at: null,
      created_at: now,
      updated_at: now,
      ordering: input.ordering ?? 'none',
      filter: filterColumn(filter),
    });
    const rateLimit = input.rate_limit ?? null;
    if (rateLimit !== null) await deliveries.setRateLimit(trx, row.id, rateLimit);
    await audited(trx, audit, 'webhook.created', row.id, {
      url: loggableUrl(url),
      events,
      rate_limit: rateLimit,
      ordering: row.ordering,
      ...(filter ? { filter } : {}),
      ...(appId ? { app_id: appId } : {}),
    });
    return { ...presentWebhook({ ...row, rate_limit: rateLimit }), secret };
  });
}

// The webhook and its list carry its health, read in the same statement: reads that tolerate lag (API.md 12.1).
export async function getWebhook(ctx: Context, audit: AuditContext, id: string): Promise<Webhook> {
  const db = ctx.reads.readsFor(audit.merchantId);
  return presentOne(db, scopeOf(audit), id, new Date(ctx.clock.now()));
}

export async function listWebhooks(
  ctx: Context,
  scope: Scope,
  input: PageInput & { appId?: string | undefined },
): Promise<Page<Webhook>> {
  const db = ctx.reads.readsFor(scope.merchantId);
  const page = await repo.listWebhooks(db, scope, input, dayBefore(new Date(ctx.clock.now())));
  return { ...page, items: page.items.map((w) => presentWebhook(w)) };
}

export async function updateWebhook(
  ctx: Context,
  deliveries: DeliveryHooks,
  audit: AuditContext,
  id: string,
  input: {
    url?: string | undefined;
    events?: string[] | undefined;
    description?: string | null | undefined;
  } & DeliveryRules,
): Promise<Webhook> {
  const events = input.events ? checkEvents(input.events) : undefined;
  const filter = input.filter === undefined ? undefined : checkFilter(input.filter);
  const url = input.url !== undefined ? await checkUrl(ctx.config, audit.mode, input.url) : undefined;
  return ctx.db.transaction().execute(async (trx) => {
    const now = new Date(ctx.clock.now());
    await locked(trx, audit, id);
    const changes = {
      ...(url !== undefined ? { url } : {}),
      ...(events !== undefined ? { events } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
      ...(filter !== undefined ? { filter } : {}),
    };
    await repo.updateWebhook(
      trx,
      scopeOf(audit),
      id,
      { ...changes, ...(filter !== undefined ? { filter: filterColumn(filter) } : {}) },
      now,
    );
    if (input.rate_limit !== undefined) await deliveries.setRateLimit(trx, id, input.rate_limit);
    const limit = input.rate_limit !== undefined ? { rate_limit: input.rate_limit } : {};
    await audited(trx, audit, 'webhook.updated', id, {
      changed: [...Object.keys(changes), ...Object.keys(limit)],
      ...changes,
      ...limit,
      ...(url !== undefined ? { url: loggableUrl(url) } : {}),
    });
    return presentOne(trx, scopeOf(audit), id, now);
  });
}

export async function setEnabled(
  ctx: Context,
  deliveries: DeliveryHooks,
  audit: AuditContext,
  id: string,
  enabled: boolean,
): Promise<Webhook> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = new Date(ctx.clock.now());
    const current = await locked(trx, audit, id);
    if ((current.status === 'enabled') === enabled) return presentOne(trx, scopeOf(audit), id, now);
    await repo.updateWebhook(
      trx,
      scopeOf(audit),
      id,
      enabled
        ? { status: 'enabled', disabled_reason: null, failing_since: null }
        : { status: 'disabled', disabled_reason: 'Disabled by the merchant.' },
      now,
    );
    // Disabled means nothing more is sent: pending retries are cancelled with it.
    if (!enabled) await deliveries.cancelPending(trx, id, now);
    await audited(trx, audit, enabled ? 'webhook.enabled' : 'webhook.disabled', id);
    return presentOne(trx, scopeOf(audit), id, now);
  });
}

export async function rotateSecret(
  ctx: Context,
  audit: AuditContext,
  id: string,
  previousExpiresIn: number,
): Promise<Webhook & { secret: string }> {
  const secret = newWebhookSecret();
  return ctx.db.transaction().execute(async (trx) => {
    const now = new Date(ctx.clock.now());
    const current = await locked(trx, audit, id);
    const expiresAt = previousExpiresIn > 0 ? new Date(now.getTime() + previousExpiresIn * 1000) : null;
    await repo.updateWebhook(
      trx,
      scopeOf(audit),
      id,
      {
        secret_sealed: encryptSecret(ctx.config.masterKey, secret),
        previous_secret_sealed: expiresAt ? current.secret_sealed : null,
        previous_secret_expires_at: expiresAt,
      },
      now,
    );
    await audited(trx, audit, 'webhook.secret_rotated', id, {
      previous_secret_expires_at: expiresAt?.toISOString() ?? null,
    });
    return { ...(await presentOne(trx, scopeOf(audit), id, now)), secret };
  });
}

/**
 * The current signing secret, shown again after the signed-in user re-enters the password. Webhook secrets
 * are stored encrypted (the service signs with them), so unlike keys and client secrets they can be shown.
 * The password check draws on the sign-in failure budgets and audits its failures (merchants module).
 */
export async function revealSecret(
  ctx: Context,
  signIns: SignInLimits,
  id: string,
  attempt: Omit<PasswordCheck, 'check'>,
): Promise<{ secret: string }> {
  const { audit } = attempt;
  const row = await repo.findWebhook(ctx.db, scopeOf(audit), id);
  if (!row) throw notFound('webhook');
  if (!(await confirmPassword(signIns, ctx, { ...attempt, check: 'reveal' }))) {
    throw new AppError('forbidden', 'The password is wrong.');
  }
  await ctx.db.transaction().execute((trx) => audited(trx, audit, 'webhook.secret_revealed', id));
  return { secret: decryptSecret(ctx.config.masterKeys, row.secret_sealed) };
}

export async function deleteWebhook(
  ctx: Context,
  deliveries: DeliveryHooks,
  audit: AuditContext,
  id: string,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const now = new Date(ctx.clock.now());
    await locked(trx, audit, id);
    await repo.updateWebhook(trx, scopeOf(audit), id, { status: 'disabled', deleted_at: now }, now);
    const cancelled = await deliveries.cancelPending(trx, id, now);
    await audited(trx, audit, 'webhook.deleted', id, { cancelled_deliveries: cancelled });
  });
}

/**
 * The app is being deleted (in the caller's transaction): its webhooks, listeners included, are deleted with
 * it and their pending deliveries cancelled, as a merchant's deletion of each would. Answers how many.
 */
export async function retireAppWebhooks(
  deliveries: DeliveryHooks,
  trx: Executor,
  appId: string,
  at: Date,
): Promise<number> {
  const ids = await repo.deleteAppWebhooks(trx, appId, at);
  for (const id of ids) await deliveries.cancelPending(trx, id, at);
  return ids.length;
}

/** For the delivery routes (dev-loop module): the webhook row, within the caller's merchant and mode. */
export async function findOwnWebhook(db: Executor, scope: Scope, id: string): Promise<repo.WebhookRow> {
  const row = await repo.findWebhook(db, scopeOf(scope), id);
  if (!row) throw notFound('webhook');
  return row;
}

/** The same for a change that only a real endpoint takes (retry, resend, test, recover). */
export async function findOwnEndpoint(db: Executor, scope: Scope, id: string): Promise<repo.WebhookRow> {
  return endpointOnly(await findOwnWebhook(db, scope, id));
}
