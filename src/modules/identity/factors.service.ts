// A user's second factors (API.md section 11.3): TOTP (RFC 6238 through `otpauth`: 6 digits, 30 s, one step
// either side; a code is accepted once), ten single-use recovery codes (shown once, stored as SHA-256), and
// passkeys (WebAuthn through `@simplewebauthn/server`; the relying party is SVC_PUBLIC_URL's host and origin).
// `verifyFactor` is the one check of a factor: the sign-in, step-up and turning-off paths call it through the
// failure budgets of sign-in.service.ts, which audit its failures.
import { createHash } from 'node:crypto';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { Secret, TOTP } from 'otpauth';
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { decryptSecret, encryptSecret } from '../../lib/secrets.ts';
import { iso } from '../../lib/time.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { afterFactorRemoved, memberAudit } from './factor-changes.ts';
import * as repo from './factors.repository.ts';
import { verifyPasskey } from './passkeys.service.ts';
import { findUserByEmail } from './users.repository.ts';
import { membershipsOfUser } from './memberships.repository.ts';
import { deleteUserSessions } from './sessions.repository.ts';

const ISSUER = 'svc';
const DIGITS = 6;
const PERIOD_S = 30;
/** One step either side of now: a code typed as it turned over, or a clock a little off. */
const WINDOW = 1;
const RECOVERY_CODES = 10;

export type FactorMethod = 'totp' | 'passkey' | 'recovery_code';

/** What a caller offers as its second factor: one of the three. */
export interface FactorProof {
  code?: string | undefined;
  recovery_code?: string | undefined;
  passkey?: AuthenticationResponseJSON | undefined;
}

/** What Settings → Account shows of the user's factors. */
export async function factorsOf(ctx: Context, userId: string) {
  const [user, passkeys, left] = await Promise.all([
    repo.findFactors(ctx.db, userId),
    repo.passkeysOfUser(ctx.db, userId),
    repo.countUnusedRecoveryCodes(ctx.db, userId),
  ]);
  return { totp: Boolean(user?.totp_sealed), passkeys: passkeys.length, recovery_codes_left: left };
}

/** The methods a sign-in may continue with, for the user's factors. */
export async function methodsOf(ctx: Context, userId: string): Promise<FactorMethod[]> {
  const f = await factorsOf(ctx, userId);
  const methods: FactorMethod[] = [];
  if (f.totp) methods.push('totp');
  if (f.passkeys > 0) methods.push('passkey');
  if (f.recovery_codes_left > 0) methods.push('recovery_code');
  return methods;
}

// --- TOTP -------------------------------------------------------------------------------------------------

const totpOf = (secret: string, label: string) =>
  new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_S,
    secret: Secret.fromBase32(secret),
  });

/** The 30-second step `code` belongs to, within the window around `now`; undefined for a wrong code. */
function stepOf(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secret, '').validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : TOTP.counter({ period: PERIOD_S, timestamp: now }) + delta;
}

/** Starts (or starts again) an enrolment: a new secret, not in force until a code confirms it. */
export async function startTotp(ctx: Context, userId: string) {
  const user = await repo.findFactors(ctx.db, userId);
  if (!user) throw notFound('user');
  if (user.totp_sealed) throw new AppError('conflict', 'TOTP is already on: turn it off first.');
  const secret = new Secret({ size: 20 }).base32;
  await repo.setPendingTotp(ctx.db, userId, encryptSecret(ctx.config.masterKey, secret));
  return { secret, otpauth_url: totpOf(secret, user.email).toString() };
}

/** New recovery codes (`xxxxx-xxxxx-xxxxx`, 15 base32 characters, 75 bits), their hashes stored. */
async function newRecoveryCodes(db: Executor, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, () => {
    const text = new Secret({ size: 10 }).base32.slice(0, 15).toLowerCase();
    return `${text.slice(0, 5)}-${text.slice(5, 10)}-${text.slice(10)}`;
  });
  await repo.replaceRecoveryCodes(db, userId, codes.map(recoveryHash));
  return codes;
}

/** Spaces, dashes and case do not matter in a recovery code as typed. */
const recoveryHash = (code: string) =>
  createHash('sha256').update(code.replace(/[\s-]/g, '').toLowerCase()).digest();

/**
 * A right code of the pending secret turns TOTP on, and answers ten new recovery codes, once. A wrong code
 * answers 400 and leaves the enrolment pending.
 */
export async function confirmTotp(ctx: Context, audit: AuditContext, code: string) {
  const userId = audit.actor.id;
  const user = await repo.findFactors(ctx.db, userId);
  if (!user?.totp_pending_sealed) {
    throw new AppError('conflict', 'No TOTP enrolment is pending: POST /auth/mfa/totp first.');
  }
  const secret = decryptSecret(ctx.config.masterKeys, user.totp_pending_sealed);
  const step = stepOf(secret, code, ctx.clock.now());
  if (step === undefined) {
    throw new AppError('validation_failed', 'code is wrong or stale.', {
      details: [{ field: 'code', issue: 'is wrong or stale' }],
    });
  }
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.confirmTotp(trx, userId, user.totp_pending_sealed!, step))) {
      throw new AppError('conflict', 'The enrolment changed meanwhile: start again.');
    }
    await repo.syncHasFactor(trx, userId);
    const codes = await newRecoveryCodes(trx, userId);
    await memberAudit(trx, audit, 'member.mfa_enabled', { method: 'totp' });
    return { recovery_codes: codes };
  });
}

/** Ten new recovery codes in place of the old ones, answered once. */
export async function regenerateRecoveryCodes(ctx: Context, audit: AuditContext) {
  const userId = audit.actor.id;
  return ctx.db.transaction().execute(async (trx) => {
    const user = await repo.findFactors(trx, userId);
    if (!user?.has_factor) {
      throw new AppError('conflict', 'Recovery codes come with a second factor: enrol one first.');
    }
    const codes = await newRecoveryCodes(trx, userId);
    await memberAudit(trx, audit, 'member.recovery_codes_regenerated', {});
    return { recovery_codes: codes };
  });
}

/** TOTP off (the caller checked the password and a factor); the recovery codes go with the last factor. */
export async function disableTotp(ctx: Context, audit: AuditContext): Promise<void> {
  const userId = audit.actor.id;
  await ctx.db.transaction().execute(async (trx) => {
    const user = await repo.findFactors(trx, userId);
    if (!user?.totp_sealed) throw new AppError('conflict', 'TOTP is not on.');
    await repo.clearTotp(trx, userId);
    await afterFactorRemoved(trx, userId);
    await memberAudit(trx, audit, 'member.mfa_disabled', { method: 'totp' });
  });
}

// --- The one check of a factor ----------------------------------------------------------------------------

/**
 * Whether `proof` is a current factor of the user: a TOTP code not used before (its step is taken), an unused
 * recovery code (used now, audited), or a passkey assertion. The method that verified, or undefined.
 */
export async function verifyFactor(
  ctx: Context,
  audit: AuditContext,
  proof: FactorProof,
): Promise<FactorMethod | undefined> {
  const userId = audit.actor.id;
  const now = ctx.clock.now();
  if (proof.code !== undefined) {
    const user = await repo.findFactors(ctx.db, userId);
    if (!user?.totp_sealed) return undefined;
    const step = stepOf(decryptSecret(ctx.config.masterKeys, user.totp_sealed), proof.code, now);
    return step !== undefined && (await repo.takeTotpStep(ctx.db, userId, step)) ? 'totp' : undefined;
  }
  if (proof.recovery_code !== undefined) {
    return ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.useRecoveryCode(trx, userId, recoveryHash(proof.recovery_code!), new Date(now)))) {
        return undefined;
      }
      const left = await repo.countUnusedRecoveryCodes(trx, userId);
      await memberAudit(trx, audit, 'member.recovery_code_used', { remaining: left });
      return 'recovery_code' as const;
    });
  }
  if (proof.passkey !== undefined) {
    return (await verifyPasskey(ctx, proof.passkey, userId)) === userId ? 'passkey' : undefined;
  }
  return undefined;
}

/**
 * An operator's reset of a user who lost every factor (`svc mfa reset`): its TOTP, passkeys and recovery
 * codes removed and its sessions ended, so that it signs in with its password alone and enrols again;
 * audited as `member.mfa_disabled` in both modes of every merchant it belongs to, the actor the system.
 */
export async function resetFactors(
  ctx: Context,
  email: string,
  reason: string,
): Promise<{ user_id: string; merchants: number }> {
  return ctx.db.transaction().execute(async (trx) => {
    const user = await findUserByEmail(trx, email);
    if (!user) throw notFound('user with this email');
    await repo.deleteFactorsOf(trx, user.id);
    await deleteUserSessions(trx, user.id);
    const memberships = await membershipsOfUser(trx, user.id);
    for (const m of memberships) {
      for (const mode of ['test', 'live'] as const) {
        const audit: AuditContext = {
          merchantId: m.id,
          mode,
          actor: { type: 'system', id: 'operator' },
          ip: null,
          userAgent: null,
          requestId: null,
          clock: ctx.clock,
        };
        await writeAudit(trx, audit, {
          action: 'member.mfa_disabled',
          entityType: 'member',
          entityId: user.id,
          fields: { method: 'all', by: 'operator', reason, email: user.email },
        });
      }
    }
    return { user_id: user.id, merchants: memberships.length };
  });
}

/** Remembers that the session verified a factor now: the step-up window opens. */
export async function markSteppedUp(ctx: Context, sessionId: string): Promise<string> {
  const now = ctx.clock.now();
  await repo.markSteppedUp(ctx.db, sessionId, new Date(now));
  return iso(new Date(now));
}
