import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import { auditKeyRoutes, auditRoutes, type AuditState } from './audit.routes.ts';
import { sharedChecks } from './chain.service.ts';
import { createSealer } from './sealer.service.ts';
import { createChainKeys } from './signing-keys.service.ts';

export { auditCtes, AUDIT_SOURCE_COLUMNS } from './audit.repository.ts';
export { AUDIT_ACTIONS, ALL_AUDIT_ACTIONS, type AuditAction, type AuditFamily } from './actions.ts';
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
export type { AuditState } from './audit.routes.ts';
export { trailEntries, type TrailEntry, type TrailQuery } from './trail.repository.ts';

export interface AuditModule extends Module {
  /** The sealer (its loop, and the catch-up of a reader), the signing keys and the chain check. */
  readonly state: AuditState;
}

export function createAudit(ctx: Context): AuditModule {
  const sealer = createSealer(ctx);
  const state: AuditState = { sealer, keys: createChainKeys(ctx), checkChain: sharedChecks(ctx) };
  return {
    name: 'audit',
    state,
    // Before the process serves: its signing keys join the JWKS of every process.
    start: () => state.keys.record(),
    merchantRoutes: auditRoutes(state),
    routes: auditKeyRoutes(state.keys),
    background: [sealer.loop],
  };
}
