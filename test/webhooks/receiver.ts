// A real local HTTP receiver for delivery tests: records every request, answers as the test says, and
// records requests of one webhook-id in flight at once (an attempt sent twice at once).
// How it answers is fixed when it starts: a test that needs other answers starts a receiver of its own
// (`withReceiver`), so a test that fails half-way cannot leave its answers to the tests after it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { eventually } from '../support/eventually.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The timing receiver's: the request arrived no earlier than this, and no later than `at`. */
  earliest?: number;
  /** The timing receiver's: the status it answered. */
  status?: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Answers only once this settles (then after `delayMs`): the test decides when the sender hears back. */
  after?: Promise<unknown>;
}

export interface Overlap {
  webhookId: string;
  arrivedAt: number[];
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Each time requests with one webhook-id were in flight at once: the id, and when each arrived here. */
  overlaps: Overlap[];
  waitFor(count: number, timeoutMs?: number, filter?: (r: Received) => boolean): Promise<Received[]>;
  close(): Promise<void>;
}

interface Unanswered {
  socket: Socket;
  at: number;
}

export async function startReceiver(
  respond: (req: Received) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  // The requests not answered yet, by webhook-id: their connection and when they arrived.
  const unanswered = new Map<string, Set<Unanswered>>();
  // A request is in flight until it is answered or its sender gives up (a timed-out attempt closes its
  // connection). A request that arrives while others of its id are unanswered makes two at once only if
  // their senders are still there. This side cannot tell at once: a receiver that fell behind (a stalled
  // test process) reads a request in one turn of its loop, the close that followed it in the next, and may
  // read the retry sent after that close in between. So the others are judged once the loop has been
  // round twice, when every close already sent has been read.
  const judge = (webhookId: string, at: number, others: Unanswered[]) => {
    if (others.length === 0) return;
    setImmediate(() =>
      setImmediate(() => {
        const there = others.filter(({ socket }) => !socket.readableEnded && !socket.destroyed);
        if (there.length > 0) r.overlaps.push({ webhookId, arrivedAt: [...there.map((o) => o.at), at] });
      }),
    );
  };
  const r: Receiver = {
    url: '',
    received: [],
    overlaps: [],
    waitFor: (count, timeoutMs, filter) => waitOn(r.received, count, timeoutMs, filter),
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
      const received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const open = unanswered.get(id) ?? new Set<Unanswered>();
      unanswered.set(id, open);
      judge(id, received.at, [...open]);
      const mine: Unanswered = { socket: req.socket, at: received.at };
      open.add(mine);
      r.received.push(received);
      const answer = respond(received);
      const end = () => {
        open.delete(mine);
        if (open.size === 0 && unanswered.get(id) === open) unanswered.delete(id);
      };
      res.once('close', end);
      const reply = () => {
        end();
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? 'ok');
      };
      const later = () => setTimeout(reply, answer.delayMs ?? 0);
      if (answer.after) void answer.after.then(later, later);
      else later();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

/** The received requests that `filter` keeps, once there are at least `count` of them. */
function waitOn(
  received: readonly Received[],
  count: number,
  timeoutMs = 10_000,
  filter: (r: Received) => boolean = () => true,
): Promise<Received[]> {
  return eventually(
    async () => {
      const matching = received.filter(filter);
      return matching.length >= count && matching;
    },
    {
      timeoutMs,
      intervalMs: 20,
      what: () => `${count} requests at the receiver, which has ${received.filter(filter).length}`,
    },
  );
}

// The timing receiver's thread: answers every request at once and posts when each arrived, read on this thread's
// clock, which nothing else in the test process can delay. The thread itself may not be scheduled for a while on
// a loaded machine, and then stamps late what arrived meanwhile: a ticker notes when its loop last turned, and
// each request also carries `earliest`, the turn before the last one, before which it cannot have arrived.
// With `perSecond`, it takes that many requests in any one second (by arrival) and answers 429 to the rest.
const TIMING_THREAD = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { perSecond } = workerData;
let last = Date.now();
let before = last;
setInterval(() => { before = last; last = Date.now(); }, 1);
const taken = [];
const answer = (at) => {
  if (perSecond === null) return 200;
  while (taken.length > 0 && at - taken[0] >= 1000) taken.shift();
  if (taken.length >= perSecond) return 429;
  taken.push(at);
  return 200;
};
const server = createServer((req, res) => {
  const at = Date.now();
  const earliest = Math.min(before, at);
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    const status = answer(at);
    parentPort.postMessage({ path: req.url, headers: req.headers, body, at, earliest, status });
    res.statusCode = status;
    res.end('ok');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

/**
 * A receiver on a thread of its own: the times it records are when requests reached it, and it answers at once,
 * even while the test process's own thread is held (by an embedded database's statements). It answers 200, or,
 * with `perSecond`, 200 to that many requests in any one second and 429 to the rest (`status` says which).
 */
export async function startTimingReceiver({ perSecond }: { perSecond?: number } = {}): Promise<Receiver> {
  const thread = new Worker(TIMING_THREAD, { eval: true, workerData: { perSecond: perSecond ?? null } });
  const received: Received[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('error', reject);
    thread.on('message', (m: Received | { port: number }) => {
      if ('port' in m) resolve(m.port);
      else received.push(m);
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    overlaps: [],
    waitFor: (count, timeoutMs, filter) => waitOn(received, count, timeoutMs, filter),
    close: async () => {
      await thread.terminate();
    },
  };
}

/**
 * The most requests that surely arrived within one second: requests i to j count when the last could not have
 * arrived 1000 ms or more after the first (its `at` less the first's `earliest`, which is the first's `at`
 * where a receiver knows no earlier bound).
 */
export function mostInOneSecond(received: readonly Received[]): number {
  const sorted = [...received].sort((x, y) => x.at - y.at);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]!.at - (sorted[i]!.earliest ?? sorted[i]!.at) >= 1000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
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
