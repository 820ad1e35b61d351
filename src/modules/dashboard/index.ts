import type { Module } from '../module.ts';
import type { FastifyPluginAsync } from 'fastify';
import { dashboardRoutes } from './dashboard.routes.ts';
import { guideRoutes } from './guides.routes.ts';

export { buildIfStale, isStale } from './build-web.ts';

const routes: FastifyPluginAsync = async (app) => {
  await app.register(dashboardRoutes);
  await app.register(guideRoutes);
};

export function createDashboard(): Module {
  return { name: 'dashboard', routes };
}
