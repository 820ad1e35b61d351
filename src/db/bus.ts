// Cross-process signals over PostgreSQL LISTEN/NOTIFY: cache invalidation (a revoked key or token stops
// working on every process within a second) and wake-ups of the delivery workers. A notification sent in
// a transaction is delivered at its commit, so nobody hears of a change that did not happen.
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import type { Executor } from './executor.ts';

export type BusHandler = (payload: string) => void;

export interface Bus {
  listen(channel: string, handler: BusHandler): Promise<() => void>;
  /**
   * Called after the listening connection was lost and re-established: notifications of the gap are lost,
   * so caches must drop everything.
   */
  onReset(handler: () => void): void;
  /** Called when the listening connection is lost, before the reconnection starts (operators log it). */
  onLost(handler: () => void): void;
  /** Whether signals are being heard now (the listening connection is up); /readyz reports it. */
  listening(): boolean;
  close(): Promise<void>;
}

export async function notify(executor: Executor, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(executor);
}

class Handlers {
  readonly byChannel = new Map<string, Set<BusHandler>>();
  readonly resets = new Set<() => void>();
  readonly losts = new Set<() => void>();
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
    // In-process: never lost.
    onLost() {},
    listening: () => true,
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
    // keepAlive notices a peer that vanished without closing the socket; a connect that hangs gives up
    // after 5 s and is tried again.
    const next = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 5000 });
    next.on('notification', (msg) => handlers.dispatch(msg.channel, msg.payload ?? ''));
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      for (const channel of handlers.byChannel.keys())
        await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      next.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
  }

  function lost(which: pg.Client): void {
    if (closed || client !== which) return;
    client = undefined;
    which.end().catch(() => {});
    handlers.losts.forEach((h) => h());
    retryIn(250);
  }

  // 250 ms doubling to 5 s while the database is away; the caches are reset once it is back, since the
  // notifications of the gap were lost.
  function retryIn(delay: number): void {
    retry = setTimeout(() => {
      connect().then(
        () => {
          if (!closed) handlers.resets.forEach((h) => h());
        },
        () => {
          if (!closed) retryIn(Math.min(delay * 2, 5000));
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
    onLost(handler) {
      handlers.losts.add(handler);
    },
    listening: () => client !== undefined,
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
