import type { Module } from '../module.ts';
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

export function createAudit(): Module {
  return { name: 'audit', merchantRoutes: auditRoutes };
}
