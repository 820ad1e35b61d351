import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { AuditLogsTable } from '../../db/schema.ts';
import { idFloor } from '../../lib/ids.ts';
import type { Mode } from '../../lib/credentials.ts';

export async function insertEntry(db: Executor, row: Insertable<AuditLogsTable>): Promise<void> {
  await db.insertInto('audit_logs').values(row).execute();
}

export interface ListFilter {
  merchantId: string;
  mode: Mode;
  limit: number;
  startingAfter?: string | undefined;
  /** Exact action, or a family as `webhook.*`. */
  action?: string | undefined;
  entityType?: string | undefined;
  entityId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

export type EntryRow = Pick<
  Selectable<AuditLogsTable>,
  'id' | 'action' | 'entity_type' | 'entity_id' | 'metadata' | 'created_at'
>;

export async function listEntries(db: Executor, f: ListFilter): Promise<{ rows: EntryRow[]; count: number }> {
  let q = db.selectFrom('audit_logs').where('merchant_id', '=', f.merchantId).where('mode', '=', f.mode);
  if (f.action?.endsWith('.*')) q = q.where('family', '=', f.action.slice(0, -2));
  else if (f.action) q = q.where('action', '=', f.action);
  if (f.entityType) q = q.where('entity_type', '=', f.entityType);
  if (f.entityId) q = q.where('entity_id', '=', f.entityId);
  // Ids begin with their creation time, so a time bound is also an id bound: the index range scan stops at
  // the bound instead of filtering rows one by one.
  if (f.since) q = q.where('created_at', '>=', f.since).where('id', '>=', idFloor('log', f.since));
  if (f.until)
    q = q.where('created_at', '<', f.until).where('id', '<', idFloor('log', new Date(f.until.getTime() + 1)));

  const page = f.startingAfter ? q.where('id', '<', f.startingAfter) : q;
  const [rows, total] = await Promise.all([
    page
      .select(['id', 'action', 'entity_type', 'entity_id', 'metadata', 'created_at'])
      .orderBy('id', 'desc')
      .limit(f.limit + 1)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}
