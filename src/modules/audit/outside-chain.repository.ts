// Entries outside the chain: rows of audit_logs that no writer made (no `via_writer` mark), neither sealed nor
// queued for the sealer, so never to be sealed. Read through audit_logs_outside_idx (migration 0120), which
// holds only the unmarked rows: none at all while nothing writes the table by hand, however long the log.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Scope } from '../../lib/scope.ts';
import { narrowed, type EntryFilter, type EntryRow } from './audit.repository.ts';

/**
 * The unmarked rows of the merchant and mode that a filter matches and that have neither a seal nor a place
 * in the queue (one probe of audit_chain_log_idx and one of audit_pending's key each: an entry queued by hand
 * afterwards, then sealed, is in the chain). `not via_writer` is written as the index's predicate, so that the
 * planner can prove the index applies; the merchant is a range, as in the list, so that only an index that
 * starts with it gives the order (audit.repository.ts, `filtered`).
 */
function outside(db: Executor, scope: Scope, f: EntryFilter) {
  return narrowed(
    db
      .selectFrom('audit_logs')
      .where('audit_logs.merchant_id', '>=', scope.merchantId)
      .where('audit_logs.merchant_id', '<=', scope.merchantId)
      .where('audit_logs.mode', '=', scope.mode)
      .where(sql<boolean>`not audit_logs.via_writer`)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('audit_chain')
              .select(sql.lit(1).as('one'))
              .whereRef('audit_chain.log_id', '=', 'audit_logs.id'),
          ),
        ),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('audit_pending')
              .select(sql.lit(1).as('one'))
              .whereRef('audit_pending.log_id', '=', 'audit_logs.id'),
          ),
        ),
      ),
    f,
  );
}

export interface OutsideChain {
  count: number;
  /** The oldest such entry. */
  first: { id: string; created_at: Date } | undefined;
}

/** How many entries of the merchant and mode are outside the chain, and the oldest of them. */
export async function outsideChain(db: Executor, scope: Scope): Promise<OutsideChain> {
  const row = await outside(db, scope, {})
    .select((eb) => ['audit_logs.id', 'audit_logs.created_at', eb.fn.countAll<string>().over().as('n')])
    .orderBy('audit_logs.merchant_id')
    .orderBy('audit_logs.id')
    .limit(1)
    .executeTakeFirst();
  return row
    ? { count: Number(row.n), first: { id: row.id, created_at: row.created_at } }
    : { count: 0, first: undefined };
}

/**
 * The entries outside the chain that a filter matches, newest first, `chunk` at a time (an export holds one
 * chunk in memory), at most `max`.
 */
export async function* eachOutsideEntry(
  db: Executor,
  scope: Scope,
  f: EntryFilter,
  chunk: number,
  max: number,
): AsyncGenerator<EntryRow> {
  let sent = 0;
  for (let before: string | undefined; sent < max;) {
    const q = outside(db, scope, f);
    const rows = await (before === undefined ? q : q.where('audit_logs.id', '<', before))
      .select([
        'audit_logs.id',
        'audit_logs.action',
        'audit_logs.entity_type',
        'audit_logs.entity_id',
        'audit_logs.metadata',
        'audit_logs.created_at',
      ])
      .orderBy('audit_logs.merchant_id')
      .orderBy('audit_logs.id', 'desc')
      .limit(Math.min(chunk, max - sent))
      .execute();
    for (const row of rows) yield { ...row, sequence: null, hash: null, prev_hash: null };
    sent += rows.length;
    if (rows.length < chunk) return;
    before = rows.at(-1)!.id;
  }
}
