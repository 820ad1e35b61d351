// Waking the delivery workers after ingestion commits, without a NOTIFY in the ingesting transaction.
// PostgreSQL serialises the commits of transactions that NOTIFY (one lock on the notification queue, held
// through commit): with pg_notify inside each ingestion statement the route topped out at ~570 events/s here,
// against ~1,100/s without it, under the same load. So the ingestion route wakes this process's workers
// directly (in memory, at once) and sends one NOTIFY for the other processes per burst: while one is in
// flight, further requests fold into a single next one.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Context } from '../../context.ts';

/** LISTEN/NOTIFY channel on which the delivery workers wait for new deliveries. */
export const DELIVERY_CHANNEL = 'svc_webhook_deliveries';

interface Signal {
  /** The payload of this process's notifications: its own workers, woken in memory already, skip them. */
  origin: string;
  local: Set<() => void>;
  sending: boolean;
  again: boolean;
}

const signals = new WeakMap<Context, Signal>();

function signalOf(ctx: Context): Signal {
  let s = signals.get(ctx);
  if (!s) {
    s = { origin: randomBytes(8).toString('hex'), local: new Set(), sending: false, again: false };
    signals.set(ctx, s);
  }
  return s;
}

/** A worker of this process asks to be called when deliveries were created here. */
export function onDeliveriesCreated(ctx: Context, wake: () => void): () => void {
  const s = signalOf(ctx);
  s.local.add(wake);
  return () => s.local.delete(wake);
}

/** Whether a notification on DELIVERY_CHANNEL came from this process (whose workers already woke). */
export function isOwnSignal(ctx: Context, payload: string): boolean {
  return payload === signalOf(ctx).origin;
}

function notifyOthers(ctx: Context, s: Signal): void {
  if (s.sending) {
    s.again = true;
    return;
  }
  s.sending = true;
  s.again = false;
  sql`select pg_notify(${DELIVERY_CHANNEL}::text, ${s.origin}::text)`
    .execute(ctx.db)
    .catch(() => {
      // lost wake-ups are caught by the workers' polling
    })
    .finally(() => {
      s.sending = false;
      if (s.again) notifyOthers(ctx, s);
    });
}

/** After a commit that created deliveries: wake the local workers now, the other processes soon. */
export function deliveriesCreated(ctx: Context): void {
  const s = signalOf(ctx);
  for (const wake of s.local) wake();
  notifyOthers(ctx, s);
}
