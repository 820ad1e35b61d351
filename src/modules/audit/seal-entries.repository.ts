// Sealing: the entries the writers queued (audit_pending, in the statement that writes each entry), oldest
// first, chained onto the tip of their merchant's and mode's chain in audit_chain. Only the sealer writes
// audit_chain and empties the queue, and only under SEALER_LOCK, so the tip it reads cannot move under it:
// sequences are gapless without locking a single row that a writer touches.
import { sql } from 'kysely';
import type { Tx } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';

/** One transaction-level advisory lock for the sealer of every process; nothing else takes it. */
const SEALER_LOCK = 7_270_070;

/** Takes the sealer's lock for the transaction: waiting for another process's batch, or not at all. */
export async function takeSealerLock(trx: Tx, wait: boolean): Promise<boolean> {
  if (wait) {
    await sql`select pg_advisory_xact_lock(${SEALER_LOCK})`.execute(trx);
    return true;
  }
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(${SEALER_LOCK}) as locked`.execute(trx);
  return rows[0]!.locked;
}

export interface PendingEntry {
  /** Null for a queued id whose entry is gone (its merchant's deletion): only dropped from the queue. */
  id: string | null;
  log_id: string;
  merchant_id: string;
  mode: Mode;
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: Date;
  /** The tip of the entry's chain before this batch: its last sequence and hash, null for a new chain. */
  tip_sequence: number | null;
  tip_hash: string | null;
}

/**
 * Up to `limit` queued entries after id `after`, in id order (creation order; across merchants, so a merchant with a backlog
 * does not hold the others back for long), each with its chain's tip, in one round trip: the queue's
 * primary key gives the order, each entry is one primary-key probe, and each chain's tip one backward step
 * in audit_chain's primary key, taken once per chain of the batch rather than once per entry.
 */
export async function pendingEntries(trx: Tx, after: string, limit: number): Promise<PendingEntry[]> {
  const { rows } = await sql<PendingEntry>`
    with pending as (
      select p.log_id, a.id, a.merchant_id, a.mode, a.action, a.entity_type, a.entity_id, a.metadata,
             a.created_at
        from audit_pending p left join audit_logs a on a.id = p.log_id
       where p.log_id > ${after}
       order by p.log_id limit ${limit}
    ), chains as (
      select distinct merchant_id, mode from pending where id is not null
    ), tips as (
      select c.merchant_id, c.mode, t.sequence, t.hash
        from chains c left join lateral (
          select s.sequence, s.hash from audit_chain s
           where s.merchant_id = c.merchant_id and s.mode = c.mode
           order by s.sequence desc limit 1
        ) t on true
    )
    select p.*, t.sequence as tip_sequence, t.hash as tip_hash
      from pending p left join tips t on t.merchant_id = p.merchant_id and t.mode = p.mode
     order by p.log_id`.execute(trx);
  return rows;
}

export interface Seal {
  merchantId: string;
  mode: Mode;
  sequence: number;
  logId: string;
  hash: string;
  prevHash: string;
}

/**
 * The batch's seals and its removal from the queue, in one statement. The primary key would refuse a
 * sequence given twice, which the lock already rules out.
 */
export async function writeSeals(trx: Tx, seals: readonly Seal[], done: readonly string[]): Promise<void> {
  const col = <K extends keyof Seal>(k: K) => seals.map((s) => s[k]);
  await sql`
    with sealed as (
      insert into audit_chain (merchant_id, mode, sequence, log_id, hash, prev_hash)
      select * from unnest(${col('merchantId')}::text[], ${col('mode')}::text[], ${col('sequence')}::bigint[],
                           ${col('logId')}::text[], ${col('hash')}::text[], ${col('prevHash')}::text[])
    )
    delete from audit_pending where log_id = any(${done}::text[])`.execute(trx);
}
