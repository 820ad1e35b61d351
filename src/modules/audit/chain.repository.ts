// Reading a merchant's chain (one per mode) by sequence, through audit_chain's primary key (migration 0070).
import type { Executor } from '../../db/database.ts';
import type { Scope } from '../../lib/scope.ts';
import { ENTRY_COLUMNS, type EntryRow } from './audit.repository.ts';

/** The chain's last seal; undefined while nothing is sealed. */
export async function chainTip(
  db: Executor,
  scope: Scope,
): Promise<{ sequence: number; hash: string } | undefined> {
  return db
    .selectFrom('audit_chain')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .select(['sequence', 'hash'])
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export interface ChainRow extends EntryRow {
  sequence: number;
  hash: string;
  prev_hash: string;
}

/** Up to `limit` sealed entries after sequence `after`, oldest first. */
export async function chainRows(
  db: Executor,
  scope: Scope,
  after: number,
  limit: number,
): Promise<ChainRow[]> {
  return db
    .selectFrom('audit_chain as c')
    .innerJoin('audit_logs', 'audit_logs.id', 'c.log_id')
    .where('c.merchant_id', '=', scope.merchantId)
    .where('c.mode', '=', scope.mode)
    .where('c.sequence', '>', after)
    .select(ENTRY_COLUMNS)
    .orderBy('c.sequence')
    .limit(limit)
    .execute();
}

/** Entries of the merchant and mode not sealed yet: a few seconds' worth while the sealer keeps up. */
export async function unsealedCount(db: Executor, scope: Scope): Promise<number> {
  const { n } = await db
    .selectFrom('audit_pending as p')
    .innerJoin('audit_logs', 'audit_logs.id', 'p.log_id')
    .where('audit_logs.merchant_id', '=', scope.merchantId)
    .where('audit_logs.mode', '=', scope.mode)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}
