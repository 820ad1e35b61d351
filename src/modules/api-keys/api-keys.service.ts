// Key pairs (API.md section 4, seed 2.2 and 4.3): a secret and a publishable key made together, rotated
// with an optional grace period, revoked at once everywhere. Every change is audited in its transaction and
// announced on CHANNEL so that every process drops the key from its verification cache.
import type { Context } from '../../context.ts';
import { notify } from '../../db/bus.ts';
import type { Executor } from '../../db/database.ts';
import { makeCredential } from '../../lib/credentials.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { isId, newId } from '../../lib/ids.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { logSecurityChange, writeAudit, type AuditContext } from '../audit/index.ts';
import { CHANNEL, evictKey, pendingUse, type KeyState } from './api-keys.cache.ts';
import * as repo from './api-keys.repository.ts';

export type KeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';
export type KeyScope = 'public:read' | 'public:write' | 'public:*';

const scopesOf = (row: repo.ApiKeyRow) => row.scopes.split(' ') as KeyScope[];

/** The key's status at `now` (epoch ms, the service's clock). */
export function statusOf(row: repo.ApiKeyRow, now: number): KeyStatus {
  if (row.revoked_at) return 'revoked';
  if (!row.expires_at) return 'active';
  return row.expires_at.getTime() <= now ? 'expired' : 'expiring';
}

function latest(a: Date | null, b: Date | undefined): Date | null {
  if (!b) return a;
  return a && a > b ? a : b;
}

export function presentKey(keys: KeyState, row: repo.ApiKeyRow, now: number) {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    publishable_key: row.publishable_key,
    secret_key_last4: row.secret_key_last4,
    scopes: scopesOf(row),
    status: statusOf(row, now),
    rotated_from: row.rotated_from,
    created_at: iso(row.created_at),
    // Uses are written in batches every few seconds; this process's own unwritten ones are shown at once.
    last_used_at: iso(latest(row.last_used_at, pendingUse(keys, row.id))),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

async function insertPair(
  trx: Executor,
  owner: Scope,
  fields: { name: string | null; scopes: readonly string[]; rotatedFrom: string | null },
  now: number,
) {
  const secret = makeCredential('secret_key', owner.mode);
  const publishable = makeCredential('publishable_key', owner.mode);
  const row = await repo.insertKey(trx, {
    id: newId('key', now),
    merchant_id: owner.merchantId,
    mode: owner.mode,
    name: fields.name,
    publishable_key: publishable.token,
    publishable_key_hash: publishable.hash,
    secret_key_hash: secret.hash,
    secret_key_last4: secret.last4,
    scopes: fields.scopes.join(' '),
    rotated_from: fields.rotatedFrom,
  });
  return { row, secretKey: secret.token };
}

export interface NewKey {
  name?: string | undefined;
  scopes?: readonly string[] | undefined;
}

export async function createKey(keys: KeyState, ctx: Context, audit: AuditContext, input: NewKey) {
  const scopes = input.scopes ?? ['public:*'];
  const now = ctx.clock.now();
  const { row, secretKey } = await ctx.db.transaction().execute(async (trx) => {
    const made = await insertPair(trx, audit, { name: input.name ?? null, scopes, rotatedFrom: null }, now);
    await writeAudit(trx, audit, {
      action: 'api_key.created',
      entityType: 'api_key',
      entityId: made.row.id,
      fields: { name: made.row.name, scopes, secret_key_last4: made.row.secret_key_last4 },
    });
    return made;
  });
  return { ...presentKey(keys, row, now), secret_key: secretKey };
}

export async function listKeys(keys: KeyState, ctx: Context, scope: Scope, page: PageInput) {
  const now = ctx.clock.now();
  return mapPage(await repo.listKeys(ctx.db, scope, page), (r) => presentKey(keys, r, now));
}

async function lockOwnKey(trx: Executor, audit: AuditContext, keyId: string) {
  const row = isId('key', keyId) ? await repo.lockKey(trx, audit, keyId) : undefined;
  if (!row) throw notFound('key');
  return row;
}

/**
 * A new pair replaces an active one; the old pair keeps working for `expiresIn` seconds (0: it stops now).
 * Only an active pair rotates: an expiring one was already replaced, and cutting its grace short is a revoke.
 */
export async function rotateKey(
  keys: KeyState,
  ctx: Context,
  audit: AuditContext,
  keyId: string,
  expiresIn: number,
) {
  const now = ctx.clock.now();
  const { row, secretKey } = await ctx.db.transaction().execute(async (trx) => {
    const old = await lockOwnKey(trx, audit, keyId);
    const status = statusOf(old, now);
    if (status !== 'active')
      throw new AppError('conflict', `The key is ${status}; only an active key rotates.`);
    const made = await insertPair(
      trx,
      audit,
      { name: old.name, scopes: scopesOf(old), rotatedFrom: old.id },
      now,
    );
    const expired = await repo.updateKey(trx, old.id, {
      expires_at: new Date(now + expiresIn * 1000),
    });
    await writeAudit(trx, audit, {
      action: 'api_key.rotated',
      entityType: 'api_key',
      entityId: old.id,
      fields: {
        new_key_id: made.row.id,
        previous_key_expires_in: expiresIn,
        previous_key_expires_at: iso(expired.expires_at),
      },
    });
    await notify(trx, CHANNEL, old.id);
    return made;
  });
  evictKey(keys, keyId);
  return { ...presentKey(keys, row, now), secret_key: secretKey };
}

/** Both keys of the pair stop working at once on every process. Revoking a revoked key changes nothing. */
export async function revokeKey(keys: KeyState, ctx: Context, audit: AuditContext, keyId: string) {
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const key = await lockOwnKey(trx, audit, keyId);
    if (key.revoked_at) return key;
    const revoked = await repo.updateKey(trx, key.id, { revoked_at: new Date(now) });
    await writeAudit(trx, audit, {
      action: 'api_key.revoked',
      entityType: 'api_key',
      entityId: key.id,
      fields: { previous_status: statusOf(key, now) },
    });
    await notify(trx, CHANNEL, key.id);
    return revoked;
  });
  evictKey(keys, keyId);
  logSecurityChange(ctx, audit, 'API key revoked', { key_id: row.id });
  return presentKey(keys, row, now);
}
