import type { Module } from '../module.ts';
import { auditRoutes } from './audit.routes.ts';

export { auditCtes, AUDIT_SOURCE_COLUMNS } from './audit.repository.ts';
export { AuditEntry as AuditEntryObject } from './audit.schemas.ts';
export {
  prepareAudit,
  writeAudit,
  logSecurityChange,
  logsOfRequest,
  systemContext,
  type Actor,
  type AuditActor,
  type AuditContext,
  type AuditEntry,
  type EntityType,
  type PreparedAudit,
} from './audit.service.ts';

export function createAudit(): Module {
  return { name: 'audit', merchantRoutes: auditRoutes };
}
