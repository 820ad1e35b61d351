// The failure budgets of every check of a user's secret (sign-in.service.ts), made so that an attacker cannot
// turn them against the account's owner. Every attempt is one of three kinds:
// - from a trusted device: it presents the `svc_device` cookie that an earlier sign-in of this account set
//   (HMAC-signed, HttpOnly). Its failures count against that device alone; no address budget applies.
// - from a known address: one this account signed in from before (remembered by the process that saw the
//   sign-in: elsewhere the attempt draws on the account-wide budget, the stricter one). Its failures
//   count against the (account, address) pair.
// - from anywhere else: its failures count against the account as a whole, and against the address.
//
// The budgets themselves are shared by every process and outlive a restart: rows of `sign_in_failures` in
// PostgreSQL, or Redis when SVC_REDIS_URL is set (docs/decisions/0161-sign-in-budgets-shared.md).
// Each budget allows a few failures, then waits that double with each further failure. The attacker's
// failures therefore fill only the account-wide budget and their own address's: the owner, on a device or
// address that signed in before, keeps a budget of their own, including behind the same address. A stolen
// session guessing the password at reveal-secret fills the same budgets as a guesser at the sign-in form.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import {
  retryAfterSeconds,
  sharedBudget,
  type FailureBudget,
  type FailurePolicy,
  type FailureStore,
} from '../../lib/failure-limiter.ts';
import { redisFailures } from '../../lib/redis-failures.ts';
import * as failures from './sign-in-failures.repository.ts';

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

/** The failure budgets and this process's known addresses, made by `createIdentity`: every password check's. */
export interface SignInLimits {
  /** Keys: `a:<email>` (account-wide), `p:<email>|<ip>` (known address), `d:<device nonce>`. */
  readonly accounts: FailureBudget;
  readonly addresses: FailureBudget;
  readonly known: Map<string, string[]>;
  readonly deviceKey: Buffer;
  /** Signs the `mfa_token` between a sign-in's password and its second factor. */
  readonly mfaKey: Buffer;
  /** Settles when the connection to Redis, if any, is up (or its connect timeout passed). */
  start(): Promise<void>;
  /** Closes the connection to Redis, if any. */
  stop(): Promise<void>;
}

/** The budget's keys, hashed: no email or address that a stranger tried is stored in clear. */
function hashedKeys(budget: FailureBudget): FailureBudget {
  const h = (key: string) => createHash('sha256').update(key).digest('hex');
  return {
    waitMs: (key) => budget.waitMs(h(key)),
    fail: (key) => budget.fail(h(key)),
    reset: (key) => budget.reset(h(key)),
  };
}

function tableStore(ctx: Context, scope: failures.Scope): FailureStore {
  return {
    read: (key) => failures.readFailures(ctx.db, scope, key),
    count: (key, now, forgetMs) => failures.countFailure(ctx.db, scope, key, now, forgetMs),
    extend: (key, until) => failures.extendBlock(ctx.db, scope, key, until),
    forget: (key) => failures.forgetFailures(ctx.db, scope, key),
  };
}

/** Forgotten budgets' rows go: the longest a budget is remembered after its last failure. */
export const FORGET_MS = Math.max(ACCOUNT.forgetMs, ADDRESS.forgetMs);

/** Deletes the rows every budget has forgotten (the session purge's loop runs it). */
export async function purgeForgottenBudgets(ctx: Context): Promise<void> {
  const now = ctx.clock.now();
  await failures.purgeForgottenFailures(ctx.db, now - FORGET_MS, now);
}

export function createSignInLimits(ctx: Context): SignInLimits {
  const redis = ctx.config.redisUrl
    ? redisFailures(ctx.config.redisUrl, (err) =>
        ctx.log.warn(
          { err },
          'Redis unreachable: sign-in failure budgets kept in PostgreSQL until it answers',
        ),
      )
    : undefined;
  const budget = (scope: failures.Scope, policy: FailurePolicy) => {
    const table = tableStore(ctx, scope);
    const store = redis ? redis.store(scope, policy.forgetMs + policy.maxMs, table) : table;
    return hashedKeys(sharedBudget(store, policy, ctx.clock));
  };
  return {
    accounts: budget('account', ACCOUNT),
    addresses: budget('address', ADDRESS),
    start: async () => redis?.connected(),
    stop: async () => redis?.close(),
    known: new Map(),
    // Derived from the master key: every process signs and checks alike, and nothing new to configure.
    deviceKey: createHmac('sha256', ctx.config.masterKey).update('svc sign-in device cookie').digest(),
    mfaKey: createHmac('sha256', ctx.config.masterKey).update('svc sign-in second step').digest(),
  };
}

export function deviceMac(state: SignInLimits, userId: string, nonce: string): Buffer {
  return createHmac('sha256', state.deviceKey).update(`${userId}.${nonce}`).digest();
}

export function issueDevice(state: SignInLimits, userId: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${userId}.${nonce}.${deviceMac(state, userId, nonce).toString('base64url')}`;
}

/** The device cookie's account and nonce when its signature holds. */
export function readDevice(
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

export function mfaMac(state: SignInLimits, body: string): string {
  return createHmac('sha256', state.mfaKey).update(body).digest('base64url');
}

export function issueMfaToken(state: SignInLimits, userId: string, merchantId: string, now: number): string {
  const body = `${userId}.${merchantId}.${now + MFA_TOKEN_TTL_MS}`;
  return `mfa_${body}.${mfaMac(state, body)}`;
}

/** The user and membership of a live `mfa_token` whose signature holds. */
export function readMfaToken(state: SignInLimits, token: string, now: number) {
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

export function remember(state: SignInLimits, userId: string, ip: string): void {
  const list = (state.known.get(userId) ?? []).filter((a) => a !== ip);
  list.push(ip);
  if (list.length > KNOWN_PER_ACCOUNT) list.shift();
  state.known.delete(userId);
  state.known.set(userId, list);
  if (state.known.size > KNOWN_ACCOUNTS) state.known.delete(state.known.keys().next().value!);
}

/** The budgets one attempt draws on: see the top of this file. */
export interface Draw {
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
export function drawOn(
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

export function limited({ log, fields, what }: Refusal, waitMs: number): AppError {
  log.info({ ...fields, outcome: 'limited' }, `${what} refused: too many failed attempts`);
  const seconds = retryAfterSeconds(waitMs);
  return new AppError('rate_limited', `Too many failed ${what} attempts; retry in ${seconds} s.`, {
    headers: { 'retry-after': seconds },
  });
}

/** How a refusal is logged: the attempt's fields, and what was tried (`sign-in`, `password`). */
export interface Refusal {
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
export async function checkWithinBudgets<T>(
  state: SignInLimits,
  ctx: Context,
  draw: Draw,
  refusal: Refusal,
  verify: () => Promise<T | undefined>,
  proves: (verified: T) => boolean = () => true,
): Promise<T | undefined> {
  if (ctx.config.rateLimit) {
    const waits = await Promise.all([
      state.accounts.waitMs(draw.accountKey),
      draw.trusted ? 0 : state.addresses.waitMs(draw.ip),
    ]);
    const wait = Math.max(...waits);
    if (wait > 0) throw limited(refusal, wait);
  }
  const verified = await verify();
  if (verified !== undefined) {
    if (proves(verified)) await state.accounts.reset(draw.accountKey);
    return verified;
  }
  await Promise.all([state.accounts.fail(draw.accountKey), draw.trusted ? 0 : state.addresses.fail(draw.ip)]);
  return undefined;
}
