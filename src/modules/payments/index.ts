import type { Module } from '../registry.ts';
import { paymentRoutes } from './payments.routes.ts';

export { SUPPORTED_COUNTRIES, type Country } from './payments.service.ts';

export const paymentsModule: Module = { name: 'payments', publicRoutes: paymentRoutes };
