// Who acts for a merchant, and how they prove it (API.md sections 2, 11.2 and 11.3): users, their memberships,
// passwords and the sign-in failure budgets, sessions, second factors (TOTP, recovery codes, passkeys) and
// step-up, with all their tables and SQL. The routes of second factors are the second-factors module's, over
// the services exported here. Merchants and stores are the merchants module's.
import type { Context } from '../../context.ts';
import type { SessionResolver } from '../../http/merchant-auth.ts';
import type { LastUses } from '../../lib/last-uses.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Module } from '../module.ts';
import { accountRoutes } from './account.routes.ts';
import { purgeExpiredSessions } from './account.service.ts';
import { createSessionUses, sessionResolver } from './sessions.service.ts';
import { createSignInLimits, purgeForgottenBudgets, type SignInLimits } from './sign-in-limits.ts';

export {
  authenticateSession,
  checkPassword,
  createMerchant,
  me,
  openSession,
  type LoginResult,
  type SessionOrigin,
  type SessionPrincipal,
  type UserRow,
} from './account.service.ts';
export {
  createUser,
  findMember,
  findUserByEmail,
  joinMerchant,
  listMembers,
  membersWithoutSecondFactor,
  presentMember,
  removeMembership,
  setRole,
  type Member,
  type MemberRow,
} from './memberships.service.ts';
export { Email, Method, Role, Session } from './account.schemas.ts';
export { resetFactors, type FactorProof } from './factors.service.ts';
// Second factors' enrolment, passkeys and step-up, which the second-factors module's routes call.
export * as factors from './factors.service.ts';
export * as passkeys from './passkeys.service.ts';
export { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE, readMfaUser, type SignInLimits } from './sign-in-limits.ts';
export {
  confirmFactor,
  confirmPassword,
  signIn,
  signInWithFactor,
  signInWithPasskey,
  type AuthCheck,
  type PasswordCheck,
  type SignInAttempt,
  type SignInResult,
} from './sign-in.service.ts';
export { clearSessionCookie, deviceCookieOf, setSessionCookie, setSignInCookies } from './sign-in.cookies.ts';

const PURGE_EVERY_MS = 10 * 60 * 1000;

export interface IdentityModule extends Module {
  /** The sign-in failure budgets, which every check of a user's password draws on (sign-in forms, reveal). */
  readonly signIns: SignInLimits;
  /** The merchant interface's session check, which notes each session's use for its batched write. */
  readonly session: SessionResolver;
  /** Each session's last use, noted by `session` and written in batches. */
  readonly sessionUses: LastUses;
}

export function createIdentity(ctx: Context): IdentityModule {
  const signIns = createSignInLimits(ctx);
  const uses = createSessionUses(ctx);
  // Expired sessions are refused by their expiry alone, and forgotten failure budgets by their times: the purge
  // only keeps the tables from growing.
  const purge = new Loop({
    name: 'session purge',
    everyMs: PURGE_EVERY_MS,
    run: async () => {
      await purgeExpiredSessions(ctx);
      await purgeForgottenBudgets(ctx);
    },
    onError: warnOnFailure(ctx.log),
  });
  return {
    name: 'identity',
    signIns,
    session: sessionResolver(uses),
    sessionUses: uses,
    merchantRoutes: async (app) => {
      await app.register(accountRoutes, { signIns, uses });
    },
    background: [purge],
    // Ready only once the shared budgets are: see redis-failures.ts `connected`.
    start: () => signIns.start(),
    // Session uses gathered since the last write reach the database before the process ends.
    stop: async () => {
      await uses.stop();
      await signIns.stop();
    },
  };
}
