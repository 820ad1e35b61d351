import type { Module } from '../module.ts';
import { auditRoutes } from './audit.routes.ts';

export {
  writeAudit,
  prepareEntry,
  type AuditActor,
  type PreparedEntry,
  logSecurityChange,
  systemContext,
  type Actor,
  type AuditContext,
  type AuditEntry,
  type EntityType,
} from './audit.service.ts';
export { entryCtes } from './audit.repository.ts';

export function createAudit(): Module {
  return { name: 'audit', merchantRoutes: auditRoutes };
}
