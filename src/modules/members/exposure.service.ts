// The credentials a member saw in clear that still work (API.md section 11.2), computed from the audit trail
// (exposure.ts) and checked against the credentials as they are now; and "rotate all", which replaces each of
// them with the grace the caller gives and answers the new secrets once.
import type { Context } from '../../context.ts';
import type { Mode } from '../../lib/credentials.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import type { Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { keyPairsById, revokeKey, rotateKey, type KeyState } from '../api-keys/index.ts';
import { trailEntries, writeAudit, type AuditContext } from '../audit/index.ts';
import { findMember } from '../identity/index.ts';
import { appSecretsById, rotateAppSecret, type AppsCache } from '../oauth-apps/index.ts';
import { rotateWebhookSecret, webhookSecretsById } from '../webhooks/index.ts';
import { mayManage, type Manager } from './manager.ts';
import {
  lastSightings,
  SECRET_MAKERS,
  secretsSince,
  SIGHTINGS,
  type CredentialType,
  type How,
  type Sighting,
} from './exposure.ts';

export interface ExposedCredential {
  type: CredentialType;
  id: string;
  name: string | null;
  mode: Mode;
  seen_at: string;
  how: How;
  /** Null while the secret seen is the current one; when it stops working, once replaced within a grace. */
  expires_at: string | null;
}

const byType = (sightings: readonly Sighting[], type: CredentialType) =>
  sightings.filter((s) => s.type === type);

/**
 * The credentials the member (`userId`, present or removed) saw in clear that still work at the service's now,
 * newest first; 404 for a user who never was a member of the merchant.
 */
export async function exposedCredentials(
  ctx: Context,
  scope: Scope,
  userId: string,
): Promise<ExposedCredential[]> {
  await knownMember(ctx, scope.merchantId, userId);
  return credentialsSeenBy(ctx, scope.merchantId, userId);
}

/**
 * A member now (its row), or one whose removal the trail records (`null`): a user id that never was a
 * member of the merchant is not found.
 */
async function knownMember(ctx: Context, merchantId: string, userId: string) {
  const member = await findMember(ctx.db, merchantId, userId);
  if (member) return member;
  const removed = await trailEntries(ctx.db, merchantId, {
    actions: ['member.removed'],
    entityIds: [userId],
  });
  if (removed.length === 0) throw notFound('member');
  return null;
}

/** The same, for a user known to be or have been a member. */
export async function credentialsSeenBy(
  ctx: Context,
  merchantId: string,
  userId: string,
): Promise<ExposedCredential[]> {
  const now = ctx.clock.now();
  const seen = lastSightings(
    await trailEntries(ctx.db, merchantId, { actions: Object.keys(SIGHTINGS), actorId: userId }),
  );
  const keys = byType(seen, 'api_key');
  const apps = byType(seen, 'client_secret');
  const hooks = byType(seen, 'webhook_secret');
  const [keyRows, appRows, hookRows, appMakers, hookMakers] = await Promise.all([
    keyPairsById(
      ctx.db,
      merchantId,
      keys.map((s) => s.id),
    ),
    appSecretsById(
      ctx.db,
      merchantId,
      apps.map((s) => s.id),
    ),
    webhookSecretsById(
      ctx.db,
      merchantId,
      hooks.map((s) => s.id),
    ),
    trailEntries(ctx.db, merchantId, {
      actions: SECRET_MAKERS.client_secret,
      entityIds: apps.map((s) => s.id),
    }),
    trailEntries(ctx.db, merchantId, {
      actions: SECRET_MAKERS.webhook_secret,
      entityIds: hooks.map((s) => s.id),
    }),
  ]);
  const exposed: ExposedCredential[] = [];
  const add = (s: Sighting, row: { name: string | null; mode: Mode }, expiresAt: Date | null) =>
    exposed.push({
      type: s.type,
      id: s.id,
      name: row.name,
      mode: row.mode,
      seen_at: iso(s.seenAt),
      how: s.how,
      expires_at: iso(expiresAt),
    });
  for (const s of keys) {
    const row = keyRows.find((r) => r.id === s.id);
    const works = row && !row.revoked_at && (!row.expires_at || row.expires_at.getTime() > now);
    if (works) add(s, row, row.expires_at);
  }
  // A secret that rotates in place: the current one works; the one before while its grace runs.
  const inPlace = (
    s: Sighting,
    makers: Parameters<typeof secretsSince>[1],
    previousExpiresAt: Date | null,
  ) => {
    const newer = secretsSince(s, makers);
    if (newer === 0) return { works: true, expiresAt: null };
    const graced = newer === 1 && previousExpiresAt !== null && previousExpiresAt.getTime() > now;
    return { works: graced, expiresAt: previousExpiresAt };
  };
  for (const s of apps) {
    const row = appRows.find((r) => r.id === s.id);
    const state = row && inPlace(s, appMakers, row.previous_secret_expires_at);
    if (row && state?.works) add(s, row, state.expiresAt);
  }
  for (const s of hooks) {
    const row = hookRows.find((r) => r.id === s.id);
    const state = row && inPlace(s, hookMakers, row.previous_secret_expires_at);
    if (row && state?.works) add(s, { name: row.description ?? row.url, mode: row.mode }, state.expiresAt);
  }
  return exposed.sort((a, b) => (a.seen_at < b.seen_at ? 1 : a.seen_at > b.seen_at ? -1 : 0));
}

/** What rotate-all did to one credential. */
export interface Replaced {
  type: CredentialType;
  id: string;
  name: string | null;
  mode: Mode;
  /**
   * `rotated`: a new secret replaces the one seen, which works for the grace; `ended`: the key pair seen was
   * already replaced (it was in a grace of its own) and is revoked; `skipped`: it changed meanwhile (deleted,
   * or rotated by someone else), with the code that said so.
   */
  outcome: 'rotated' | 'ended' | 'skipped';
  /** The new secret, shown this once (`rotated` only). */
  secret: string | null;
  /** A rotated key pair's new id (a rotation makes a new pair). */
  new_id: string | null;
  error: string | null;
}

/** What rotating needs of the other modules' state. */
export interface RotationState {
  keys: KeyState;
  apps: AppsCache;
}

async function replaceOne(
  ctx: Context,
  state: RotationState,
  audit: AuditContext,
  credential: ExposedCredential,
  graceSeconds: number,
): Promise<Pick<Replaced, 'outcome' | 'secret' | 'new_id'>> {
  switch (credential.type) {
    case 'api_key': {
      if (credential.expires_at !== null) {
        await revokeKey(state.keys, ctx, audit, credential.id);
        return { outcome: 'ended', secret: null, new_id: null };
      }
      const made = await rotateKey(state.keys, ctx, audit, credential.id, graceSeconds);
      return { outcome: 'rotated', secret: made.secret_key, new_id: made.id };
    }
    case 'client_secret': {
      const made = await rotateAppSecret(state.apps, ctx, audit, credential.id, graceSeconds);
      return { outcome: 'rotated', secret: made.client_secret, new_id: null };
    }
    case 'webhook_secret': {
      const made = await rotateWebhookSecret(ctx, audit, credential.id, graceSeconds);
      return { outcome: 'rotated', secret: made.secret, new_id: null };
    }
  }
}

/**
 * Replaces every credential the member saw that still works, each through its own module's rotation (its
 * audit entry, its cache eviction on every process), each in its own mode. A credential that changed
 * meanwhile is skipped, not fatal: the secrets already made must reach the caller. Then `member.credentials_
 * rotated` records the whole.
 */
export async function rotateExposed(
  ctx: Context,
  state: RotationState,
  by: Manager,
  userId: string,
  graceSeconds: number,
): Promise<Replaced[]> {
  const { audit } = by;
  const member = await knownMember(ctx, audit.merchantId, userId);
  if (member) mayManage(by.role, member.role);
  const exposed = await credentialsSeenBy(ctx, audit.merchantId, userId);
  const replaced: Replaced[] = [];
  for (const credential of exposed) {
    const base = { type: credential.type, id: credential.id, name: credential.name, mode: credential.mode };
    try {
      const done = await replaceOne(
        ctx,
        state,
        { ...audit, mode: credential.mode },
        credential,
        graceSeconds,
      );
      replaced.push({ ...base, ...done, error: null });
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'not_found' && err.code !== 'conflict')) throw err;
      replaced.push({ ...base, outcome: 'skipped', secret: null, new_id: null, error: err.code });
    }
  }
  await ctx.db.transaction().execute((trx) =>
    writeAudit(trx, audit, {
      action: 'member.credentials_rotated',
      entityType: 'member',
      entityId: userId,
      fields: {
        previous_expires_in: graceSeconds,
        credentials: replaced.map((r) => ({ type: r.type, id: r.id, outcome: r.outcome, new_id: r.new_id })),
      },
    }),
  );
  return replaced;
}
