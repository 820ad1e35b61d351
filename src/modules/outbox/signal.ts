// Waking the delivery workers (and `svc listen` streams) after ingestion commits, without a NOTIFY in the
// ingesting transaction. PostgreSQL serialises the commits of transactions that NOTIFY (one lock on the
// notification queue, held through commit): with pg_notify inside each ingestion statement the route topped
// out at ~570 events/s here, against ~1,100/s without it, under the same load. So ingestion wakes this
// process's waiters directly (in memory, at once) and sends one NOTIFY for the other processes per burst:
// while one is in flight, further raises fold into a single next one (a batcher whose write is the NOTIFY).
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.ts';
import { notify } from '../../db/bus.ts';
import { Batcher } from '../../lib/batcher.ts';

/** LISTEN/NOTIFY channel on which the delivery workers wait for new deliveries. */
export const DELIVERY_CHANNEL = 'svc_webhook_deliveries';
/**
 * The same for `svc listen` streams, which read test-mode events themselves: one NOTIFY per burst of
 * test-mode ingestion, sent only on this channel so that the delivery workers never wake for it.
 */
export const LISTEN_CHANNEL = 'svc_listen_events';

export class Signal {
  /** The payload of this process's notifications: its own waiters, woken in memory already, skip them. */
  private readonly origin = randomBytes(8).toString('hex');
  private readonly local = new Set<() => void>();
  private readonly others: Batcher<null, null>;
  private readonly ctx: Context;
  readonly channel: string;

  constructor(ctx: Context, channel: string) {
    this.ctx = ctx;
    this.channel = channel;
    this.others = new Batcher({
      maxBatch: Number.MAX_SAFE_INTEGER,
      write: async (raises) => {
        await notify(ctx.db, channel, this.origin);
        return raises.map(() => null);
      },
      // A lost wake-up is caught by the waiters' polling (1 s): worth a debug line, not a warning per burst.
      onError: (err) => ctx.log.debug({ err, channel }, 'cross-process wake-up not sent'),
    });
  }

  /**
   * Calls `wake` when this process raises the signal (at once) and when another one does (on NOTIFY); the
   * answer stops both.
   */
  async listen(wake: () => void): Promise<() => void> {
    const unlisten = await this.ctx.bus.listen(this.channel, (payload) => {
      if (payload !== this.origin) wake();
    });
    this.local.add(wake);
    return () => {
      this.local.delete(wake);
      unlisten();
    };
  }

  /** After a commit that made work: wake this process's waiters now, the other processes soon. */
  raise(): void {
    for (const wake of this.local) wake();
    this.others.submit(null).catch(() => {}); // reported by onError
  }

  /** Waits for the NOTIFY in flight, if any: a stop closes the database only after it. */
  drained(): Promise<void> {
    return this.others.drained();
  }
}
