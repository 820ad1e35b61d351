// The trail of chosen actions across a merchant's two logs, for rules computed from what happened (the
// credentials a member saw in clear: API.md section 11.2). Each action's entries of a merchant are one range
// of the action index per mode; the actor is read from the metadata, which only the rows of those actions pay.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export interface TrailQuery {
  actions: readonly string[];
  /** Only entries whose actor has this id. */
  actorId?: string;
  /** Only entries about these entities. */
  entityIds?: readonly string[];
}

/** The entries, oldest first (ids are time-sortable). */
export async function trailEntries(db: Executor, merchantId: string, query: TrailQuery) {
  if (query.actions.length === 0 || query.entityIds?.length === 0) return [];
  let select = db
    .selectFrom('audit_logs')
    .select(['id', 'mode', 'action', 'entity_id', 'metadata', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('action', 'in', query.actions);
  if (query.actorId !== undefined) {
    select = select.where(sql<string>`metadata::jsonb -> 'actor' ->> 'id'`, '=', query.actorId);
  }
  if (query.entityIds !== undefined) select = select.where('entity_id', 'in', query.entityIds);
  return select.orderBy('id').execute();
}

export type TrailEntry = Awaited<ReturnType<typeof trailEntries>>[number];
