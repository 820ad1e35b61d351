// Sign-in, and every other check of a user's password, code or recovery code, with failure limits that an
// attacker cannot turn against the account's owner (OWASP "Slow down online guessing attacks with device
// cookies"). Both sign-in routes (`/auth/login` and the authorize page's form) call `signIn`, its second step
// is `signInWithFactor`, a sign-in with a passkey alone `signInWithPasskey`; a signed-in user re-entering the
// password (revealing a webhook secret) calls `confirmPassword`, and one proving a second factor (step-up,
// turning a factor off) `confirmFactor`: all of them draw on one set of budgets, through
// `checkWithinBudgets`, and the checks of a known user audit each failure (`member.auth_failed`, API.md
// section 11.3). Every attempt is one of three kinds:
//
// - from a trusted device: it presents the `svc_device` cookie that an earlier sign-in of this account set
//   (HMAC-signed, HttpOnly). Its failures count against that device alone; no address budget applies.
// - from a known address: one this account signed in from before (remembered per process). Its failures
//   count against the (account, address) pair.
// - from anywhere else: its failures count against the account as a whole, and against the address.
//
// Each budget allows a few failures, then waits that double with each further failure. The attacker's
// failures therefore fill only the account-wide budget and their own address's: the owner, on a device or
// address that signed in before, keeps a budget of their own, including behind the same address. A stolen
// session guessing the password at reveal-secret fills the same budgets as a guesser at the sign-in form.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { createFailureLimiter, retryAfterSeconds, type FailureLimiter } from '../../lib/failure-limiter.ts';
import type { Mode } from '../../lib/credentials.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../lib/passwords.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import {
  methodsOf,
  verifyFactor,
  verifyPasskey,
  type FactorMethod,
  type FactorProof,
} from './factors.service.ts';
import * as repo from './merchants.repository.ts';
import { findMember, lastMembership } from './memberships.repository.ts';
import { openSession, type LoginResult, type SessionOrigin, type UserRow } from './merchants.service.ts';

export const DEVICE_COOKIE = 'svc_device';
/** A device cookie lives a year: it marks a browser that signed in, and carries no authority of its own. */
export const DEVICE_COOKIE_MAX_AGE = 365 * 86_400;

const MINUTE = 60_000;
// Five failures on one account, then 1 s, 2 s, 4 s ... up to 15 min: about 100 guesses a day against an
// account from new addresses, where NIST SP 800-63B 3.2.2 allows at most 100 consecutive failures.
const ACCOUNT = { free: 5, baseMs: 1000, maxMs: 15 * MINUTE, forgetMs: 60 * MINUTE };
// An address trying many accounts (credential stuffing): 20 failures free, then the same doubling.
const ADDRESS = { free: 20, baseMs: 1000, maxMs: 15 * MINUTE, forgetMs: 15 * MINUTE };
/** Addresses remembered per account, and accounts remembered: bounded memory, oldest dropped first. */
const KNOWN_PER_ACCOUNT = 10;
const KNOWN_ACCOUNTS = 100_000;

/** This process's failure budgets and known addresses, made by `createMerchants`: every password check's. */
export interface SignInLimits {
  /** Keys: `a:<email>` (account-wide), `p:<email>|<ip>` (known address), `d:<device nonce>`. */
  readonly accounts: FailureLimiter;
  readonly addresses: FailureLimiter;
  readonly known: Map<string, string[]>;
  readonly deviceKey: Buffer;
  /** Signs the `mfa_token` between a sign-in's password and its second factor. */
  readonly mfaKey: Buffer;
}

export function createSignInLimits(ctx: Context): SignInLimits {
  return {
    accounts: createFailureLimiter(ACCOUNT, ctx.clock),
    addresses: createFailureLimiter(ADDRESS, ctx.clock),
    known: new Map(),
    // Derived from the master key: every process signs and checks alike, and nothing new to configure.
    deviceKey: createHmac('sha256', ctx.config.masterKey).update('svc sign-in device cookie').digest(),
    mfaKey: createHmac('sha256', ctx.config.masterKey).update('svc sign-in second step').digest(),
  };
}

function deviceMac(state: SignInLimits, userId: string, nonce: string): Buffer {
  return createHmac('sha256', state.deviceKey).update(`${userId}.${nonce}`).digest();
}

function issueDevice(state: SignInLimits, userId: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${userId}.${nonce}.${deviceMac(state, userId, nonce).toString('base64url')}`;
}

/** The device cookie's account and nonce when its signature holds. */
function readDevice(
  state: SignInLimits,
  cookie: string | undefined,
): { userId: string; nonce: string } | undefined {
  const [userId, nonce, mac, extra] = cookie?.split('.') ?? [];
  if (!userId || !nonce || !mac || extra !== undefined || mac.length > 64) return undefined;
  const given = Buffer.from(mac, 'base64url');
  const expected = deviceMac(state, userId, nonce);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { userId, nonce } : undefined;
}

/** A sign-in's password was right: five minutes to give the second factor, for the membership it opens. */
const MFA_TOKEN_TTL_MS = 5 * MINUTE;

function mfaMac(state: SignInLimits, body: string): string {
  return createHmac('sha256', state.mfaKey).update(body).digest('base64url');
}

function issueMfaToken(state: SignInLimits, userId: string, merchantId: string, now: number): string {
  const body = `${userId}.${merchantId}.${now + MFA_TOKEN_TTL_MS}`;
  return `mfa_${body}.${mfaMac(state, body)}`;
}

/** The user and membership of a live `mfa_token` whose signature holds. */
function readMfaToken(state: SignInLimits, token: string, now: number) {
  const parts = token.startsWith('mfa_') ? token.slice(4).split('.') : [];
  const [userId, merchantId, expires, mac] = parts;
  if (parts.length !== 4 || !userId || !merchantId || !mac || !(Number(expires) > now)) return undefined;
  const given = Buffer.from(mac, 'base64url');
  const expected = Buffer.from(mfaMac(state, `${userId}.${merchantId}.${expires}`), 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? { userId, merchantId }
    : undefined;
}

/** The user of a live `mfa_token` (the passkey options of a second step), or undefined. */
export function readMfaUser(state: SignInLimits, ctx: Context, token: string): string | undefined {
  return readMfaToken(state, token, ctx.clock.now())?.userId;
}

function remember(state: SignInLimits, userId: string, ip: string): void {
  const list = (state.known.get(userId) ?? []).filter((a) => a !== ip);
  list.push(ip);
  if (list.length > KNOWN_PER_ACCOUNT) list.shift();
  state.known.delete(userId);
  state.known.set(userId, list);
  if (state.known.size > KNOWN_ACCOUNTS) state.known.delete(state.known.keys().next().value!);
}

/** The budgets one attempt draws on: see the top of this file. */
interface Draw {
  /** `a:<email>` (account-wide), `p:<email>|<ip>` (known address) or `d:<device nonce>` (trusted device). */
  accountKey: string;
  ip: string;
  /** A trusted device's failures count against it alone: the address's budget does not apply. */
  trusted: boolean;
  known: boolean;
}

/**
 * Keyed by the email as given at sign-in (trimmed, lower case, as the lookup matches it), so that a 429 does
 * not tell whether the account exists; a check of a known user's password keys it by the user's email alike.
 */
function drawOn(
  state: SignInLimits,
  email: string,
  userId: string | undefined,
  ip: string,
  device: { userId: string; nonce: string } | undefined,
): Draw {
  const account = email.trim().toLowerCase();
  const trusted = device !== undefined && userId !== undefined && device.userId === userId;
  const known = !trusted && userId !== undefined && (state.known.get(userId)?.includes(ip) ?? false);
  const accountKey = trusted ? `d:${device.nonce}` : known ? `p:${account}|${ip}` : `a:${account}`;
  return { accountKey, ip, trusted, known };
}

function limited({ log, fields, what }: Refusal, waitMs: number): AppError {
  log.info({ ...fields, outcome: 'limited' }, `${what} refused: too many failed attempts`);
  const seconds = retryAfterSeconds(waitMs);
  return new AppError('rate_limited', `Too many failed ${what} attempts; retry in ${seconds} s.`, {
    headers: { 'retry-after': seconds },
  });
}

/** How a refusal is logged: the attempt's fields, and what was tried (`sign-in`, `password`). */
interface Refusal {
  log: FastifyBaseLogger;
  fields: object;
  what: string;
}

/**
 * The one way a user's secret is checked: 429 `rate_limited` while a budget the attempt draws on waits
 * (SVC_RATE_LIMIT=off lifts the waits, not the counting), else `verify` runs; a failure (`undefined`) is
 * counted, a success forgets the attempt's account budget unless `proves` says it does not prove the account
 * (a right password of a user with a second factor: else knowing the password would reset the budget of the
 * codes). A wrong secret is a value: each caller answers it.
 */
async function checkWithinBudgets<T>(
  state: SignInLimits,
  ctx: Context,
  draw: Draw,
  refusal: Refusal,
  verify: () => Promise<T | undefined>,
  proves: (verified: T) => boolean = () => true,
): Promise<T | undefined> {
  const wait = Math.max(
    state.accounts.waitMs(draw.accountKey),
    draw.trusted ? 0 : state.addresses.waitMs(draw.ip),
  );
  if (wait > 0 && ctx.config.rateLimit) throw limited(refusal, wait);
  const verified = await verify();
  if (verified !== undefined) {
    if (proves(verified)) state.accounts.reset(draw.accountKey);
    return verified;
  }
  state.accounts.fail(draw.accountKey);
  if (!draw.trusted) state.addresses.fail(draw.ip);
  return undefined;
}

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
    const wait = state.addresses.waitMs(ip);
    if (wait > 0) throw limited({ log, fields: { ip }, what: 'sign-in' }, wait);
  }
  const user = await repo.findUserByEmail(ctx.db, attempt.email);
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
  const user = token ? await repo.findUserById(ctx.db, token.userId) : undefined;
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
  const wait = state.addresses.waitMs(ip);
  if (wait > 0 && ctx.config.rateLimit) throw limited({ log, fields: { ip }, what: 'sign-in' }, wait);
  const userId = await verifyPasskey(ctx, attempt.assertion, undefined);
  const user = userId ? await repo.findUserById(ctx.db, userId) : undefined;
  const membership = user ? await lastMembership(ctx.db, user.id) : undefined;
  if (!user || !membership) {
    state.addresses.fail(ip);
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
  const user = await repo.findUserById(ctx.db, userId);
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
