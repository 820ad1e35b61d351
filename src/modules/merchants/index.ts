import type { Module } from '../registry.ts';
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

export const merchantsModule: Module = {
  name: 'merchants',
  merchantRoutes,
  publicRoutes: storeRoutes,
  // Expired sessions are refused by their expiry alone; the purge only keeps the table from growing.
  async start(ctx) {
    const timer = setInterval(() => {
      purgeExpiredSessions(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'session purge failed'));
    }, PURGE_EVERY_MS);
    timer.unref();
    return async () => clearInterval(timer);
  },
};
