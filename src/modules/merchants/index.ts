import type { Context } from '../../context.ts';
import type { SessionResolver } from '../../http/merchant-auth.ts';
import type { LastUses } from '../../lib/last-uses.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Module } from '../module.ts';
import { factorRoutes } from './factors.routes.ts';
import { merchantRoutes } from './merchants.routes.ts';
import { purgeExpiredSessions } from './merchants.service.ts';
import { createSessionUses, sessionResolver } from './sessions.service.ts';
import { createSignInLimits, type SignInLimits } from './sign-in.service.ts';
import { createFirstStores, type FirstStores } from './stores.service.ts';
import { storeRoutes } from './stores.routes.ts';

export {
  authenticateSession,
  checkPassword,
  createMerchant,
  findMerchantStore,
  isEmptyDatabase,
  me,
  merchantName,
  openSession,
  purgeExpiredSessions,
  type LoginResult,
  type SessionOrigin,
  type SessionPrincipal,
  type UserRow,
} from './merchants.service.ts';
export {
  createUser,
  findMember,
  findUserByEmail,
  joinMerchant,
  listMembers,
  presentMember,
  removeMembership,
  setRole,
  type Member,
  type MemberRow,
} from './memberships.service.ts';
export { Email, Role, Session } from './merchants.schemas.ts';
export { resetFactors } from './factors.service.ts';
export {
  confirmPassword,
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE,
  signIn,
  type AuthCheck,
  type PasswordCheck,
  type SignInAttempt,
  type SignInLimits,
  type SignInResult,
} from './sign-in.service.ts';
export { clearSessionCookie, deviceCookieOf, setSessionCookie, setSignInCookies } from './sign-in.cookies.ts';
export { firstStore, installedStoreId, type FirstStores, type PublicStore } from './stores.service.ts';

const PURGE_EVERY_MS = 10 * 60 * 1000;

export interface MerchantsModule extends Module {
  /** The sign-in failure budgets, which every check of a user's password draws on (sign-in forms, reveal). */
  readonly signIns: SignInLimits;
  /** Each merchant's first store, remembered: the token endpoint's `store_id` costs no query once warm. */
  readonly firstStores: FirstStores;
  /** The merchant interface's session check, which notes each session's use for its batched write. */
  readonly session: SessionResolver;
  /** Each session's last use, noted by `session` and written in batches. */
  readonly sessionUses: LastUses;
}

export function createMerchants(ctx: Context): MerchantsModule {
  const signIns = createSignInLimits(ctx);
  const firstStores = createFirstStores();
  const uses = createSessionUses(ctx);
  // Expired sessions are refused by their expiry alone; the purge only keeps the table from growing.
  const purge = new Loop({
    name: 'session purge',
    everyMs: PURGE_EVERY_MS,
    run: () => purgeExpiredSessions(ctx).then(() => undefined),
    onError: warnOnFailure(ctx.log),
  });
  return {
    name: 'merchants',
    signIns,
    firstStores,
    session: sessionResolver(uses),
    sessionUses: uses,
    merchantRoutes: async (app) => {
      await app.register(merchantRoutes, { signIns, uses });
      await app.register(factorRoutes, { signIns });
    },
    publicRoutes: storeRoutes,
    background: [purge],
    // Session uses gathered since the last write reach the database before the process ends.
    stop: () => uses.stop(),
  };
}
