import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Module } from '../module.ts';
import { merchantRoutes } from './merchants.routes.ts';
import { purgeExpiredSessions } from './merchants.service.ts';
import { storeRoutes } from './stores.routes.ts';

export {
  authenticateSession,
  checkPassword,
  confirmPassword,
  createMerchant,
  findMerchantStore,
  isEmptyDatabase,
  me,
  merchantName,
  purgeExpiredSessions,
  type SessionPrincipal,
} from './merchants.service.ts';
export {
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE,
  signIn,
  type SignInAttempt,
  type SignInResult,
} from './sign-in.service.ts';
export { deviceCookieOf, setSignInCookies } from './sign-in.cookies.ts';
export { installedStoreId, storesFor, type PublicStore } from './stores.service.ts';

const PURGE_EVERY_MS = 10 * 60 * 1000;

export function createMerchants(ctx: Context): Module {
  // Expired sessions are refused by their expiry alone; the purge only keeps the table from growing.
  const purge = new Loop({
    name: 'session purge',
    everyMs: PURGE_EVERY_MS,
    run: () => purgeExpiredSessions(ctx).then(() => undefined),
    onError: warnOnFailure(ctx.log),
  });
  return { name: 'merchants', merchantRoutes, publicRoutes: storeRoutes, background: [purge] };
}
