import type { Module } from '../registry.ts';
import { dashboardRoutes } from './dashboard.routes.ts';

export { buildIfStale, isStale } from './build-web.ts';

export const dashboardModule: Module = { name: 'dashboard', routes: dashboardRoutes };
