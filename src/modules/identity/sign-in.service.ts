// Sign-in, and every other check of a user's password, code or recovery code, with failure limits that an
// attacker cannot turn against the account's owner (OWASP "Slow down online guessing attacks with device
// cookies"). Both sign-in routes (`/auth/login` and the authorize page's form) call `signIn`, its second step
// is `signInWithFactor`, a sign-in with a passkey alone `signInWithPasskey`; a signed-in user re-entering the
// password (revealing a webhook secret) calls `confirmPassword`, and one proving a second factor (step-up,
// turning a factor off) `confirmFactor`: all of them draw on one set of budgets, through
// `checkWithinBudgets`, and the checks of a known user audit each failure (`member.auth_failed`, API.md
// section 11.3). The budgets, and the three kinds of attempt they tell apart, are sign-in-limits.ts's.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import type { Mode } from '../../lib/credentials.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../lib/passwords.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { methodsOf, verifyFactor, type FactorMethod, type FactorProof } from './factors.service.ts';
import { verifyPasskey } from './passkeys.service.ts';
import * as users from './users.repository.ts';
import { findMember, lastMembership } from './memberships.repository.ts';
import { openSession, type LoginResult, type SessionOrigin, type UserRow } from './account.service.ts';

import {
  checkWithinBudgets,
  drawOn,
  issueDevice,
  issueMfaToken,
  limited,
  readDevice,
  readMfaToken,
  remember,
  type SignInLimits,
} from './sign-in-limits.ts';

export interface SignInAttempt {
  email: string;
  password: string;
  /** The client address (`request.ip`: through trusted proxies only). */
  ip: string;
  /** The client's User-Agent, kept with the session for its list. */
  userAgent: string | null;
  /** The `svc_device` cookie, when sent. */
  device: string | undefined;
  /** The request's logger: its lines carry the request id. */
  log: FastifyBaseLogger;
}

export interface SignedIn {
  session: LoginResult;
  /** A fresh device cookie for this account. */
  device: string;
}

/** The answer of a sign-in: a session, or, for a user with a second factor, what its second step needs. */
export type SignInResult = SignedIn | { mfa: SecondStep };

export interface SecondStep {
  mfa_required: true;
  mfa_token: string;
  methods: FactorMethod[];
}

/**
 * Unknown email and wrong password cost the same scrypt run and answer the same, and the account-wide budget
 * is keyed by the email as given, so a 429 does not tell whether the account exists either.
 */
export async function signIn(
  state: SignInLimits,
  ctx: Context,
  attempt: SignInAttempt,
): Promise<SignInResult> {
  const { ip, log } = attempt;
  const device = readDevice(state, attempt.device);
  // A device cookie vouches for its own account only; the address budget is checked before any lookup.
  if (!device && ctx.config.rateLimit) {
    const wait = await state.addresses.waitMs(ip);
    if (wait > 0) throw limited({ log, fields: { ip }, what: 'sign-in' }, wait);
  }
  const user = await users.findUserByEmail(ctx.db, attempt.email);
  // The membership this sign-in opens: the one used last (API.md section 11.2).
  const membership = user ? await lastMembership(ctx.db, user.id) : undefined;
  const draw = drawOn(state, attempt.email, user?.id, ip, device);
  const fields = {
    user_id: user?.id,
    merchant_id: membership?.merchant_id,
    ip,
    trusted_device: draw.trusted,
    known: draw.known,
  };
  const verified = await checkWithinBudgets(
    state,
    ctx,
    draw,
    { log, fields, what: 'sign-in' },
    async () => {
      const right = await verifyPassword(attempt.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
      return user && right ? user : undefined;
    },
    (right) => !right.has_factor,
  );
  if (!verified) {
    log.info({ ...fields, outcome: 'failed' }, 'sign-in failed');
    throw new AppError('invalid_credentials', 'The email or password is wrong.');
  }
  if (!membership) {
    // The right password of a user every merchant removed: said only to whoever knows the password.
    log.info({ ...fields, outcome: 'no_membership' }, 'sign-in refused: no membership');
    throw new AppError('forbidden', 'This account is no longer a member of any merchant.');
  }
  // A right password is not yet a sign-in for a user with a second factor: its address is remembered (and
  // earns a budget of its own) only once the factor is right too.
  if (verified.has_factor) {
    log.info({ ...fields, outcome: 'second_step' }, 'sign-in password right: second factor asked');
    const mfaToken = issueMfaToken(state, verified.id, membership.merchant_id, ctx.clock.now());
    const methods = await methodsOf(ctx, verified.id);
    return { mfa: { mfa_required: true, mfa_token: mfaToken, methods } };
  }
  // A device sign-in proves the device, not the address: behind a shared NAT, remembering the address
  // would hand everyone else there the owner's budget.
  if (!draw.trusted) remember(state, verified.id, ip);
  const origin: SessionOrigin = { ip, userAgent: attempt.userAgent };
  const session = await openSession(
    ctx,
    ctx.db,
    { user: verified, merchantId: membership.merchant_id, role: membership.role },
    origin,
  );
  log.info({ ...fields, outcome: 'succeeded' }, 'sign-in succeeded');
  return { session, device: issueDevice(state, verified.id) };
}

export interface SecondStepAttempt extends Omit<SignInAttempt, 'email' | 'password'> {
  mfaToken: string;
  proof: FactorProof;
  /** The mode of the request: the log a failure is audited in. */
  mode: Mode;
  requestId: string | null;
}

/**
 * The second step of a sign-in: the `mfa_token` of a right password, and a factor of its user, checked on
 * the same budgets as the password; a session of the membership the first step chose, inside the step-up
 * window. A token that is forged, expired or of a removed member answers 401 `invalid_credentials`.
 */
export async function signInWithFactor(
  state: SignInLimits,
  ctx: Context,
  attempt: SecondStepAttempt,
): Promise<SignedIn> {
  const now = ctx.clock.now();
  const token = readMfaToken(state, attempt.mfaToken, now);
  const user = token ? await users.findUserById(ctx.db, token.userId) : undefined;
  const member = token && user ? await findMember(ctx.db, token.merchantId, user.id) : undefined;
  if (!token || !user || !member) {
    throw new AppError('invalid_credentials', 'The sign-in has expired or is not valid: sign in again.');
  }
  const audit = auditOf(ctx, attempt, { userId: user.id, email: user.email, merchantId: token.merchantId });
  const method = await confirmFactor(state, ctx, { ...attempt, check: 'login', audit });
  if (!method) throw new AppError('invalid_credentials', 'The code is wrong or was used already.');
  if (!readDevice(state, attempt.device)) remember(state, user.id, attempt.ip);
  const session = await openSession(
    ctx,
    ctx.db,
    { user, merchantId: member.merchant_id, role: member.role, steppedUp: true },
    { ip: attempt.ip, userAgent: attempt.userAgent },
  );
  attempt.log.info({ user_id: user.id, method, outcome: 'succeeded' }, 'sign-in succeeded');
  return { session, device: issueDevice(state, user.id) };
}

/**
 * A sign-in with a passkey alone (discoverable): the assertion names its user, whose membership used last
 * opens, inside the step-up window. Failures draw on the address's budget: a failed assertion names no user
 * whose budget it could fill (its signature is what failed).
 */
export async function signInWithPasskey(
  state: SignInLimits,
  ctx: Context,
  attempt: Omit<SignInAttempt, 'email' | 'password'> & { assertion: AuthenticationResponseJSON },
): Promise<SignedIn> {
  const { ip, log } = attempt;
  const wait = ctx.config.rateLimit ? await state.addresses.waitMs(ip) : 0;
  if (wait > 0) throw limited({ log, fields: { ip }, what: 'sign-in' }, wait);
  const userId = await verifyPasskey(ctx, attempt.assertion, undefined);
  const user = userId ? await users.findUserById(ctx.db, userId) : undefined;
  const membership = user ? await lastMembership(ctx.db, user.id) : undefined;
  if (!user || !membership) {
    await state.addresses.fail(ip);
    log.info({ ip, outcome: 'failed' }, 'passkey sign-in failed');
    throw new AppError('invalid_credentials', 'The passkey did not verify.');
  }
  const session = await openSession(
    ctx,
    ctx.db,
    { user, merchantId: membership.merchant_id, role: membership.role, steppedUp: true },
    { ip, userAgent: attempt.userAgent },
  );
  log.info({ user_id: user.id, method: 'passkey', outcome: 'succeeded' }, 'sign-in succeeded');
  return { session, device: issueDevice(state, user.id) };
}

/** The audit context of a check made before any session: the user, in the membership it signs in to. */
function auditOf(
  ctx: Context,
  attempt: { ip: string; userAgent: string | null; mode: Mode; requestId: string | null },
  who: { userId: string; email: string; merchantId: string },
): AuditContext {
  return {
    merchantId: who.merchantId,
    mode: attempt.mode,
    actor: { type: 'user', id: who.userId, email: who.email },
    ip: attempt.ip,
    userAgent: attempt.userAgent,
    requestId: attempt.requestId,
    clock: ctx.clock,
  };
}

/** The checks of API.md section 11.3, by the name their failures are audited under. */
export type AuthCheck = 'login' | 'reveal' | 'accept_invitation' | 'step_up' | 'disable_factor';

/** A check of a known user's secret (`audit.actor`), with what its budgets and its audit entry need. */
export interface SecretCheck {
  check: AuthCheck;
  /** The client address (`request.ip`) and the `svc_device` cookie, as at sign-in. */
  ip: string;
  device: string | undefined;
  log: FastifyBaseLogger;
  /**
   * Whose password (`actor`: the signed-in user, or the user accepting an invitation), and the merchant and
   * mode whose log a failure is audited in.
   */
  audit: AuditContext;
}

export interface PasswordCheck extends SecretCheck {
  password: string;
}

/**
 * A known user's secret checked within the budgets: `verify`'s value when right; undefined when wrong, with
 * a `member.auth_failed` entry (the check's name, never the value tried) committed whatever the caller does
 * next; 429 `rate_limited` past the budgets, which every such check fills and waits on alike.
 */
async function checkKnownUser<T>(
  state: SignInLimits,
  ctx: Context,
  attempt: SecretCheck,
  what: string,
  verify: (user: UserRow | undefined) => Promise<T | undefined>,
  /** A right password of a user with a second factor does not forget the budget (checkWithinBudgets). */
  isPassword = false,
): Promise<T | undefined> {
  const { audit, log } = attempt;
  const userId = audit.actor.id;
  const user = await users.findUserById(ctx.db, userId);
  const draw = drawOn(state, user?.email ?? userId, user?.id, attempt.ip, readDevice(state, attempt.device));
  const fields = {
    check: attempt.check,
    user_id: userId,
    merchant_id: audit.merchantId,
    ip: attempt.ip,
    trusted_device: draw.trusted,
    known: draw.known,
  };
  const verified = await checkWithinBudgets(
    state,
    ctx,
    draw,
    { log, fields, what },
    () => verify(user),
    () => !(isPassword && user?.has_factor === true),
  );
  if (verified !== undefined) return verified;
  await ctx.db.transaction().execute((trx) =>
    writeAudit(trx, audit, {
      action: 'member.auth_failed',
      entityType: 'member',
      entityId: userId,
      fields: { check: attempt.check },
    }),
  );
  log.info({ ...fields, outcome: 'failed' }, `${what} check failed`);
  return undefined;
}

/**
 * A signed-in user re-entering the password before a sensitive step: true when right; false when wrong, with
 * a `member.auth_failed` entry (the check's name, never the value tried) committed whatever the caller does
 * next; 429 `rate_limited` past the sign-in budgets, which this check fills and waits on alike.
 */
export async function confirmPassword(
  state: SignInLimits,
  ctx: Context,
  attempt: PasswordCheck,
): Promise<boolean> {
  const confirmed = await checkKnownUser(
    state,
    ctx,
    attempt,
    'password',
    async (user) => {
      const right = await verifyPassword(attempt.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
      return right ? true : undefined;
    },
    true,
  );
  return confirmed === true;
}

/**
 * A user proving a second factor (a TOTP code, a recovery code or a passkey assertion), on the same budgets
 * and with the same audit as its password: the method that verified, or undefined.
 */
export async function confirmFactor(
  state: SignInLimits,
  ctx: Context,
  attempt: SecretCheck & { proof: FactorProof },
): Promise<FactorMethod | undefined> {
  return checkKnownUser(state, ctx, attempt, 'second factor', () =>
    verifyFactor(ctx, attempt.audit, attempt.proof),
  );
}
