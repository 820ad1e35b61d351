// Sign-in with failure limits that an attacker cannot turn against the account's owner (OWASP "Slow down
// online guessing attacks with device cookies"). Both sign-in routes (`/auth/login` and the authorize page's
// form) call `signIn`, so they share one budget. Every attempt is one of three kinds:
//
// - from a trusted device: it presents the `svc_device` cookie that an earlier sign-in of this account set
//   (HMAC-signed, HttpOnly). Its failures count against that device alone; no address budget applies.
// - from a known address: one this account signed in from before (remembered per process). Its failures
//   count against the (account, address) pair.
// - from anywhere else: its failures count against the account as a whole, and against the address.
//
// Each budget allows a few failures, then waits that double with each further failure. The attacker's
// failures therefore fill only the account-wide budget and their own address's: the owner, on a device or
// address that signed in before, keeps a budget of their own, including behind the same address.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { createFailureLimiter, retryAfterSeconds, type FailureLimiter } from '../../lib/failure-limiter.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../lib/passwords.ts';
import type { Clock } from '../../lib/time.ts';
import * as repo from './merchants.repository.ts';
import { openSession, type LoginResult } from './merchants.service.ts';

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

/** This process's failure budgets and known addresses: made by `createMerchants`, shared by both sign-in forms. */
export interface SignInLimits {
  /** Keys: `a:<email>` (account-wide), `p:<email>|<ip>` (known address), `d:<device nonce>`. */
  readonly accounts: FailureLimiter;
  readonly addresses: FailureLimiter;
  readonly known: Map<string, string[]>;
  readonly deviceKey: Buffer;
}

export function createSignInLimits(config: Config, clock: Clock): SignInLimits {
  return {
    accounts: createFailureLimiter(ACCOUNT, clock),
    addresses: createFailureLimiter(ADDRESS, clock),
    known: new Map(),
    // Derived from the master key: every process signs and checks alike, and nothing new to configure.
    deviceKey: createHmac('sha256', config.masterKey).update('svc sign-in device cookie').digest(),
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

function remember(state: SignInLimits, userId: string, ip: string): void {
  const list = (state.known.get(userId) ?? []).filter((a) => a !== ip);
  list.push(ip);
  if (list.length > KNOWN_PER_ACCOUNT) list.shift();
  state.known.delete(userId);
  state.known.set(userId, list);
  if (state.known.size > KNOWN_ACCOUNTS) state.known.delete(state.known.keys().next().value!);
}

export interface SignInAttempt {
  email: string;
  password: string;
  /** The client address (`request.ip`: through trusted proxies only). */
  ip: string;
  /** The `svc_device` cookie, when sent. */
  device: string | undefined;
  /** The request's logger: its lines carry the request id. */
  log: FastifyBaseLogger;
}

export interface SignInResult {
  session: LoginResult;
  /** A fresh device cookie for this account. */
  device: string;
}

function limited(log: FastifyBaseLogger, fields: object, waitMs: number): AppError {
  log.info({ ...fields, outcome: 'limited' }, 'sign-in refused: too many failed attempts');
  const seconds = retryAfterSeconds(waitMs);
  return new AppError('rate_limited', `Too many failed sign-in attempts; retry in ${seconds} s.`, {
    headers: { 'retry-after': seconds },
  });
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
  const limits = ctx.config.rateLimit; // SVC_RATE_LIMIT=off: test suites that sign in many times
  const { ip, log } = attempt;
  const email = attempt.email.trim().toLowerCase();
  const device = readDevice(state, attempt.device);
  // A device cookie vouches for its own account only; the address budget is checked before any lookup.
  if (!device && limits) {
    const wait = state.addresses.waitMs(ip);
    if (wait > 0) throw limited(log, { ip }, wait);
  }
  const user = await repo.findUserByEmail(ctx.db, attempt.email);
  const trusted = device !== undefined && user !== undefined && device.userId === user.id;
  const known = !trusted && user !== undefined && (state.known.get(user.id)?.includes(ip) ?? false);
  const accountKey = trusted ? `d:${device.nonce}` : known ? `p:${email}|${ip}` : `a:${email}`;
  const fields = { user_id: user?.id, merchant_id: user?.merchant_id, ip, trusted_device: trusted, known };
  const wait = Math.max(
    state.accounts.waitMs(accountKey),
    trusted || !device ? 0 : state.addresses.waitMs(ip),
  );
  if (wait > 0 && limits) throw limited(log, fields, wait);

  const ok = await verifyPassword(attempt.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
  const merchant = user && ok ? await repo.findMerchant(ctx.db, user.merchant_id) : undefined;
  if (!user || !merchant) {
    state.accounts.fail(accountKey);
    if (!trusted) state.addresses.fail(ip);
    log.info({ ...fields, outcome: 'failed' }, 'sign-in failed');
    throw new AppError('invalid_credentials', 'The email or password is wrong.');
  }
  state.accounts.reset(accountKey);
  // A device sign-in proves the device, not the address: behind a shared NAT, remembering the address
  // would hand everyone else there the owner's budget.
  if (!trusted) remember(state, user.id, ip);
  const session = await openSession(ctx, ctx.db, user, merchant);
  log.info({ ...fields, outcome: 'succeeded' }, 'sign-in succeeded');
  return { session, device: issueDevice(state, user.id) };
}
