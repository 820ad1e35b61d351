// A real local HTTP receiver for delivery tests: records every request, answers as the test says, and
// tracks requests in flight per webhook-id (an attempt sent twice at once would show up as 2).
// How it answers is fixed when it starts: a test that needs other answers starts a receiver of its own
// (`withReceiver`), so a test that fails half-way cannot leave its answers to the tests after it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../support/eventually.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The highest number of requests with one webhook-id in flight at the same time. */
  maxConcurrentPerId: number;
  waitFor(count: number, timeoutMs?: number, filter?: (r: Received) => boolean): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: (req: Received) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  const inFlight = new Map<string, number>();
  const r: Receiver = {
    url: '',
    received: [],
    maxConcurrentPerId: 0,
    waitFor: (count, timeoutMs = 10_000, filter = () => true) =>
      eventually(
        async () => {
          const matching = r.received.filter(filter);
          return matching.length >= count && matching;
        },
        {
          timeoutMs,
          intervalMs: 20,
          what: () => `${count} requests at the receiver, which has ${r.received.filter(filter).length}`,
        },
      ),
    // Every connection goes, idle or not: the service's agent keeps its connections alive, and a receiver
    // closed while the service runs (`withReceiver`) would otherwise wait out the 60 s keep-alive.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const n = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, n);
      r.maxConcurrentPerId = Math.max(r.maxConcurrentPerId, n);
      const received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      r.received.push(received);
      const answer = respond(received);
      // A request is in flight until it is answered or its sender gives up (a timed-out attempt closes its
      // connection): a retry after a timeout is not a second attempt at once, even if this side saw it late.
      let over = false;
      const end = () => {
        if (over) return;
        over = true;
        inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      };
      res.once('close', end);
      setTimeout(() => {
        end();
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? 'ok');
      }, answer.delayMs ?? 0);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

/** Runs `body` with a receiver of its own that answers with `respond`, and closes it whatever `body` does. */
export async function withReceiver<T>(
  respond: (req: Received) => Answer,
  body: (rx: Receiver) => Promise<T>,
): Promise<T> {
  const rx = await startReceiver(respond);
  try {
    return await body(rx);
  } finally {
    await rx.close();
  }
}
