// Merchant accounts and sign-in (API.md section 2). Sessions are `svc_mst_` credentials stored as SHA-256.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { hashCredential, makeCredential, parseCredential, sameHash } from '../../lib/credentials.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { passwordProblem } from '../../lib/password-policy.ts';
import { iso } from '../../lib/time.ts';
import * as repo from './merchants.repository.ts';

export interface NewMerchant {
  merchantName: string;
  email: string;
  password: string;
  storeName?: string;
}

export interface SessionPrincipal {
  merchantId: string;
  userId: string;
  sessionId: string;
}

type UserRow = NonNullable<Awaited<ReturnType<typeof repo.findUser>>>;
type MerchantRow = NonNullable<Awaited<ReturnType<typeof repo.findMerchant>>>;

export const presentUser = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  role: u.role,
  created_at: iso(u.created_at),
});
export const presentMerchant = (m: MerchantRow) => ({
  id: m.id,
  name: m.name,
  created_at: iso(m.created_at),
});

/** 400 `validation_failed` naming `field` when the password breaks the policy (every way a password is set). */
export function checkPassword(password: string, email: string | undefined, field = 'password'): void {
  const issue = passwordProblem(password, { email });
  if (issue) throw new AppError('validation_failed', `${field} ${issue}.`, { details: [{ field, issue }] });
}

/** Creates the merchant, its owner and a first store; 409 `conflict` when the email is taken. */
export async function createMerchant(ctx: Context, input: NewMerchant) {
  checkPassword(input.password, input.email);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const merchant = await repo.insertMerchant(trx, { id: newId('mer', now), name: input.merchantName });
    const user = await repo.insertUser(trx, {
      id: newId('usr', now),
      merchant_id: merchant.id,
      email: input.email,
      password_hash: passwordHash,
    });
    if (!user) throw new AppError('conflict', 'An account with this email already exists.');
    const store = await repo.insertStore(trx, {
      id: newId('store', now),
      merchant_id: merchant.id,
      name: input.storeName ?? input.merchantName,
    });
    return { merchant, user, store };
  });
}

export async function openSession(ctx: Context, db: Executor, user: UserRow, merchant: MerchantRow) {
  const credential = makeCredential('merchant_session');
  const now = ctx.clock.now();
  const expiresAt = new Date(now + ctx.config.sessionTtlSeconds * 1000);
  await repo.insertSession(db, {
    id: newId('ses', now),
    token_hash: credential.hash,
    user_id: user.id,
    merchant_id: merchant.id,
    expires_at: expiresAt,
  });
  return {
    token: credential.token,
    expires_at: iso(expiresAt),
    user: presentUser(user),
    merchant: presentMerchant(merchant),
  };
}

export type LoginResult = Awaited<ReturnType<typeof openSession>>;

export async function signup(ctx: Context, input: NewMerchant): Promise<LoginResult> {
  if (!ctx.config.signup) throw new AppError('not_found', 'No such path.');
  const { merchant, user } = await createMerchant(ctx, input);
  return openSession(ctx, ctx.db, user, merchant);
}

export async function logout(ctx: Context, session: SessionPrincipal): Promise<void> {
  await repo.deleteSession(ctx.db, session.merchantId, session.sessionId);
}

export async function authenticateSession(
  ctx: Context,
  token: string,
): Promise<SessionPrincipal | undefined> {
  if (parseCredential(token)?.kind !== 'merchant_session') return undefined;
  const hash = hashCredential(token);
  const row = await repo.findLiveSession(ctx.db, hash, new Date(ctx.clock.now()));
  if (!row || !sameHash(row.token_hash, hash)) return undefined;
  return { merchantId: row.merchant_id, userId: row.user_id, sessionId: row.id };
}

export async function me(ctx: Context, session: SessionPrincipal) {
  const [user, merchant, stores] = await Promise.all([
    repo.findUser(ctx.db, session.merchantId, session.userId),
    repo.findMerchant(ctx.db, session.merchantId),
    repo.listStores(ctx.db, session.merchantId),
  ]);
  if (!user || !merchant)
    throw new AppError('invalid_credential', 'The session is unknown, expired or signed out.');
  return {
    user: presentUser(user),
    merchant: presentMerchant(merchant),
    stores: stores.map((s) => ({ id: s.id, name: s.name, created_at: iso(s.created_at) })),
  };
}

/** For other modules: the store if it belongs to the merchant (a store of another merchant is not found). */
export async function findMerchantStore(db: Executor, merchantId: string, storeId: string) {
  return repo.findStore(db, merchantId, storeId);
}

export async function merchantName(db: Executor, merchantId: string): Promise<string | undefined> {
  return (await repo.findMerchant(db, merchantId))?.name;
}

export async function purgeExpiredSessions(ctx: Context): Promise<void> {
  await repo.deleteExpiredSessions(ctx.db, new Date(ctx.clock.now()));
}

export const isEmptyDatabase = async (ctx: Context) => (await repo.countMerchants(ctx.db)) === 0;
