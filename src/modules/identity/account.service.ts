// Accounts and their sessions (API.md sections 2 and 11.2). A user is one email across merchants; it acts
// for a merchant through a membership (its role there), and a session (`svc_mst_`, stored as SHA-256) opens
// one membership.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { Role } from '../../http/roles.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { hashCredential, makeCredential, parseCredential, sameHash } from '../../lib/credentials.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { passwordProblem } from '../../lib/password-policy.ts';
import { iso } from '../../lib/time.ts';
import { findMerchant, insertMerchant, presentMerchant, storesOf } from '../merchants/index.ts';
import * as members from './memberships.repository.ts';
import * as users from './users.repository.ts';
import * as sessions from './sessions.repository.ts';

export interface NewMerchant {
  merchantName: string;
  email: string;
  password: string;
  storeName?: string;
}

export interface SessionPrincipal {
  merchantId: string;
  userId: string;
  email: string;
  role: Role;
  sessionId: string;
  hasFactor: boolean;
  steppedUpAt: number | null;
  requireMfa: boolean;
}

/** Where a session is opened from, as its list shows it. */
export interface SessionOrigin {
  ip: string | null;
  userAgent: string | null;
}

export type UserRow = NonNullable<Awaited<ReturnType<typeof users.findUserById>>>;

/** The user as one membership shows it: `role` is its role in that merchant. */
export const presentUser = (u: UserRow, role: Role) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role,
  created_at: iso(u.created_at),
});

/** 400 `validation_failed` naming `field` when the password breaks the policy (every way a password is set). */
export function checkPassword(password: string, email: string | undefined, field = 'password'): void {
  const issue = passwordProblem(password, { email });
  if (issue) throw new AppError('validation_failed', `${field} ${issue}.`, { details: [{ field, issue }] });
}

/** Creates the merchant, its owner and a first store; 409 `conflict` when the email is taken. */
export async function createMerchant(ctx: Context, input: NewMerchant) {
  checkPassword(input.password, input.email);
  const passwordHash = await hashPassword(input.password, ctx.config.passwordCost);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const { merchant, store } = await insertMerchant(trx, now, input.merchantName, input.storeName);
    const user = await users.insertUser(trx, {
      id: newId('usr', now),
      email: input.email,
      password_hash: passwordHash,
    });
    if (!user) throw new AppError('conflict', 'An account with this email already exists.');
    await members.insertMembership(trx, {
      merchant_id: merchant.id,
      user_id: user.id,
      role: 'owner',
      joined_at: new Date(now),
    });
    return { merchant, user, store };
  });
}

/** The membership a session is opened for. */
export interface OpenedMembership {
  user: UserRow;
  merchantId: string;
  role: Role;
  /** The sign-in verified a second factor: the session starts inside the step-up window. */
  steppedUp?: boolean;
}

/** A new session of the membership, which is thereby the one used last (the next sign-in opens it). */
export async function openSession(
  ctx: Context,
  db: Executor,
  membership: OpenedMembership,
  origin: SessionOrigin,
) {
  const merchant = await findMerchant(db, membership.merchantId);
  if (!merchant) throw new AppError('not_found', 'No such merchant.');
  const credential = makeCredential('merchant_session');
  const now = ctx.clock.now();
  const expiresAt = new Date(now + ctx.config.sessionTtlSeconds * 1000);
  await sessions.insertSession(db, {
    id: newId('ses', now),
    token_hash: credential.hash,
    user_id: membership.user.id,
    merchant_id: merchant.id,
    ip: origin.ip,
    user_agent: origin.userAgent,
    created_at: new Date(now),
    expires_at: expiresAt,
    stepped_up_at: membership.steppedUp === true ? new Date(now) : null,
  });
  await members.touchMembership(db, merchant.id, membership.user.id, new Date(now));
  return {
    token: credential.token,
    expires_at: iso(expiresAt),
    user: presentUser(membership.user, membership.role),
    merchant: presentMerchant(merchant),
  };
}

export type LoginResult = Awaited<ReturnType<typeof openSession>>;

export async function signup(ctx: Context, input: NewMerchant, origin: SessionOrigin): Promise<LoginResult> {
  if (!ctx.config.signup) throw new AppError('not_found', 'No such path.');
  const { merchant, user } = await createMerchant(ctx, input);
  return openSession(ctx, ctx.db, { user, merchantId: merchant.id, role: 'owner' }, origin);
}

export async function logout(ctx: Context, session: SessionPrincipal): Promise<void> {
  await sessions.deleteSession(ctx.db, session.merchantId, session.sessionId);
}

/** The session's membership, or `undefined` for a token that is malformed, unknown, expired or signed out. */
export async function authenticateSession(
  ctx: Context,
  token: string,
): Promise<SessionPrincipal | undefined> {
  if (parseCredential(token)?.kind !== 'merchant_session') return undefined;
  const hash = hashCredential(token);
  const row = await sessions.findLiveSession(ctx.db, hash, new Date(ctx.clock.now()));
  if (!row || !sameHash(row.token_hash, hash)) return undefined;
  const { role, email, has_factor: hasFactor, require_mfa: requireMfa } = row;
  // a membership, user or merchant gone (their deletion takes the session with it, in the same transaction)
  if (role === null || email === null || hasFactor === null || requireMfa === null) return undefined;
  return {
    merchantId: row.merchant_id,
    userId: row.user_id,
    email,
    role,
    sessionId: row.id,
    hasFactor,
    steppedUpAt: row.stepped_up_at?.getTime() ?? null,
    requireMfa,
  };
}

export async function me(ctx: Context, session: SessionPrincipal) {
  const [user, merchant, stores, memberships] = await Promise.all([
    users.findUserById(ctx.db, session.userId),
    findMerchant(ctx.db, session.merchantId),
    storesOf(ctx.db, session.merchantId),
    members.membershipsOfUser(ctx.db, session.userId),
  ]);
  if (!user || !merchant)
    throw new AppError('invalid_credential', 'The session is unknown, expired or signed out.');
  return {
    user: presentUser(user, session.role),
    merchant: presentMerchant(merchant),
    role: session.role,
    memberships: memberships.map((m) => ({ merchant: { id: m.id, name: m.name }, role: m.role })),
    stores,
    mfa_enrolment_required: session.requireMfa && !session.hasFactor,
  };
}

export async function purgeExpiredSessions(ctx: Context): Promise<void> {
  await sessions.deleteExpiredSessions(ctx.db, new Date(ctx.clock.now()));
}
