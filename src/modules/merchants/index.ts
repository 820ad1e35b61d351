import type { Module } from '../registry.ts';
import { merchantRoutes } from './merchants.routes.ts';

export {
  authenticateSession,
  createMerchant,
  findMerchantStore,
  isEmptyDatabase,
  merchantName,
  purgeExpiredSessions,
  type SessionPrincipal,
} from './merchants.service.ts';

export const merchantsModule: Module = { name: 'merchants', merchantRoutes };
