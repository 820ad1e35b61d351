// The audit writer runs inside the caller's transaction: the entry commits with the change it records, or
// neither does. Metadata carries who did it and from where, and never a secret: a credential-shaped value
// is a bug in the caller, so it fails the write (and the change with it) instead of landing in the log.
import { newId } from '../../lib/ids.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { Executor } from '../../db/database.ts';
import { insertEntry, listEntries, type ListFilter } from './audit.repository.ts';

export interface Actor {
  type: 'user' | 'app' | 'system';
  id: string;
}

/** Who acts, for which merchant and mode, and the request it came in on. */
export interface AuditContext {
  merchantId: string;
  mode: Mode;
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

export type EntityType = 'api_key' | 'developer_app' | 'oauth_grant' | 'webhook' | 'webhook_delivery';

export interface AuditEntry {
  action: string;
  entityType: EntityType;
  entityId: string;
  /** The action's own fields: ids, names, scopes. Never a secret. */
  fields?: Record<string, unknown>;
}

const SECRET_SHAPE = /svc_(?:test_|live_)?(?:sk|cs|oac|oat|ort|mst)_[0-9A-Za-z]{8}|whsec_[A-Za-z0-9+/]{8}/;

export function systemContext(merchantId: string, mode: Mode, requestId: string | null = null): AuditContext {
  return { merchantId, mode, actor: { type: 'system', id: 'svc' }, ip: null, userAgent: null, requestId };
}

export async function writeAudit(trx: Executor, ctx: AuditContext, entry: AuditEntry): Promise<string> {
  const metadata = JSON.stringify({
    actor: ctx.actor,
    ip: ctx.ip,
    user_agent: ctx.userAgent,
    request_id: ctx.requestId,
    ...entry.fields,
  });
  if (SECRET_SHAPE.test(metadata)) throw new Error(`audit metadata of ${entry.action} holds a secret`);
  const now = new Date();
  const id = newId('log', now);
  await insertEntry(trx, {
    id,
    merchant_id: ctx.merchantId,
    mode: ctx.mode,
    action: entry.action,
    family: entry.action.split('.')[0]!,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    metadata,
    created_at: now,
  });
  return id;
}

export async function listLogs(db: Executor, filter: ListFilter) {
  return listEntries(db, filter);
}
