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
/**
 * The same for `svc listen` streams, which read test-mode events themselves: one NOTIFY per burst of
 * test-mode ingestion, sent only on this channel so that the delivery workers never wake for it.
 */
export const LISTEN_CHANNEL = 'svc_listen_events';

interface Signal {
  /** The payload of this process's notifications: its own workers, woken in memory already, skip them. */
  origin: string;
  local: Set<() => void>;
  sending: boolean;
  again: boolean;
}

const signals = new WeakMap<Context, Map<string, Signal>>();

function signalOf(ctx: Context, channel = DELIVERY_CHANNEL): Signal {
  let byChannel = signals.get(ctx);
  if (!byChannel) signals.set(ctx, (byChannel = new Map<string, Signal>()));
  let s = byChannel.get(channel);
  if (!s) {
    s = { origin: randomBytes(8).toString('hex'), local: new Set(), sending: false, again: false };
    byChannel.set(channel, s);
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

function notifyOthers(ctx: Context, s: Signal, channel = DELIVERY_CHANNEL): void {
  if (s.sending) {
    s.again = true;
    return;
  }
  s.sending = true;
  s.again = false;
  sql`select pg_notify(${channel}::text, ${s.origin}::text)`
    .execute(ctx.db)
    .catch(() => {
      // lost wake-ups are caught by the workers' polling
    })
    .finally(() => {
      s.sending = false;
      if (s.again) notifyOthers(ctx, s, channel);
    });
}

/** After a commit that created deliveries: wake the local workers now, the other processes soon. */
export function deliveriesCreated(ctx: Context): void {
  const s = signalOf(ctx);
  for (const wake of s.local) wake();
  notifyOthers(ctx, s);
}

/** A `svc listen` stream of this process asks to be called when test-mode events were recorded here. */
export function onTestEventsRecorded(ctx: Context, wake: () => void): () => void {
  const s = signalOf(ctx, LISTEN_CHANNEL);
  s.local.add(wake);
  return () => s.local.delete(wake);
}

/** Whether a notification on LISTEN_CHANNEL came from this process (whose streams already woke). */
export function isOwnListenSignal(ctx: Context, payload: string): boolean {
  return payload === signalOf(ctx, LISTEN_CHANNEL).origin;
}

/** After a commit that recorded test-mode events: wake this process's streams now, the others soon. */
export function testEventsRecorded(ctx: Context): void {
  const s = signalOf(ctx, LISTEN_CHANNEL);
  for (const wake of s.local) wake();
  notifyOthers(ctx, s, LISTEN_CHANNEL);
}
