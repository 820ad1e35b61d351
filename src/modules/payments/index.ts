import type { Module } from '../module.ts';
import { paymentRoutes } from './payments.routes.ts';

export { SUPPORTED_COUNTRIES, type Country } from './payments.service.ts';

export function createPayments(): Module {
  return { name: 'payments', publicRoutes: paymentRoutes };
}
