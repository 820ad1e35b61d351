import type { Module } from '../registry.ts';
import { auditRoutes } from './audit.routes.ts';

export {
  writeAudit,
  logSecurityChange,
  systemContext,
  type Actor,
  type AuditContext,
  type AuditEntry,
  type EntityType,
} from './audit.service.ts';

export const auditModule: Module = { name: 'audit', merchantRoutes: auditRoutes };
