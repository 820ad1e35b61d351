// Cross-process signals over PostgreSQL LISTEN/NOTIFY: cache invalidation (a revoked key or token stops
// working on every process within a second) and wake-ups of the delivery workers. A notification sent in
// a transaction is delivered at its commit, so nobody hears of a change that did not happen.
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import type { Executor } from './database.ts';

export type BusHandler = (payload: string) => void;

export interface Bus {
  listen(channel: string, handler: BusHandler): Promise<() => void>;
  /**
   * Called after the listening connection was lost and re-established: notifications of the gap are lost,
   * so caches must drop everything.
   */
  onReset(handler: () => void): void;
  close(): Promise<void>;
}

export async function notify(executor: Executor, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(executor);
}

class Handlers {
  readonly byChannel = new Map<string, Set<BusHandler>>();
  readonly resets = new Set<() => void>();
  dispatch(channel: string, payload: string) {
    for (const handler of this.byChannel.get(channel) ?? []) {
      try {
        handler(payload);
      } catch {
        // a failing handler must not keep the others from hearing the signal
      }
    }
  }
  add(channel: string, handler: BusHandler): boolean {
    let set = this.byChannel.get(channel);
    const first = !set;
    if (!set) this.byChannel.set(channel, (set = new Set()));
    set.add(handler);
    return first;
  }
}

export function createPgliteBus(pglite: PGlite): Bus {
  const handlers = new Handlers();
  const unlisteners: (() => Promise<void>)[] = [];
  return {
    async listen(channel, handler) {
      if (handlers.add(channel, handler)) {
        unlisteners.push(await pglite.listen(channel, (payload) => handlers.dispatch(channel, payload)));
      }
      return () => handlers.byChannel.get(channel)?.delete(handler);
    },
    onReset(handler) {
      handlers.resets.add(handler);
    },
    async close() {
      handlers.byChannel.clear();
      await Promise.allSettled(unlisteners.map((u) => u()));
    },
  };
}

/** One dedicated connection LISTENs for the process; it reconnects with back-off and then resets caches. */
export async function createPgBus(url: string): Promise<Bus> {
  const handlers = new Handlers();
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (msg) => handlers.dispatch(msg.channel, msg.payload ?? ''));
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    await next.connect();
    for (const channel of handlers.byChannel.keys())
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    client = next;
  }

  function reconnect(lost: pg.Client, delay = 250): void {
    if (closed || client !== lost) return;
    client = undefined;
    lost.end().catch(() => {});
    retry = setTimeout(() => {
      connect().then(
        () => handlers.resets.forEach((h) => h()),
        () => {
          client = lost;
          reconnect(lost, Math.min(delay * 2, 5000));
        },
      );
    }, delay);
  }

  await connect();
  return {
    async listen(channel, handler) {
      if (handlers.add(channel, handler) && client)
        await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      return () => handlers.byChannel.get(channel)?.delete(handler);
    },
    onReset(handler) {
      handlers.resets.add(handler);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
