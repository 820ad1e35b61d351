// The sender's deadlines (sender.ts), against a thread held as an embedded database's statements hold it. A
// request that undici could not write by its write deadline, because the thread was held between the send and
// the connect's completion, is never sent, and its connection stays for the next request. An attempt's timeout
// counts only the time this process could write the request and read the answer: a hold past it is not the
// endpoint's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createAgent, sendOnce, WriteDeadlineError } from '../../src/modules/webhooks/sender.ts';
import { startTimingReceiver } from './receiver.ts';

const arrivals: string[] = [];
let closed = 0;
const server = createServer((req, res) => {
  arrivals.push(req.url ?? '/');
  req.resume();
  // '/silent' never answers: the attempt's timeout ends it
  if (req.url !== '/silent') req.on('end', () => res.end('ok'));
});
server.on('connection', (socket) => socket.on('close', () => closed++));
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Holds this thread, as a long synchronous statement would. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

it('writes nothing past the deadline and keeps the connection; a request within its deadline is sent', async () => {
  const agent = createAgent({ timeoutMs: 2000, allowPrivate: true });
  try {
    // a new connection: its connect completes only once the thread is free again, 100 ms later
    const late = sendOnce(agent, `${url}/late`, {}, '{}', 2000, systemClock, systemClock.now() + 25);
    hold(100);
    await expect(late).rejects.toBeInstanceOf(WriteDeadlineError);

    const onTime = await sendOnce(
      agent,
      `${url}/on-time`,
      {},
      '{}',
      2000,
      systemClock,
      systemClock.now() + 25,
    );
    const unbounded = await sendOnce(agent, `${url}/unbounded`, {}, '{}', 2000, systemClock);
    expect([onTime.status, unbounded.status]).toEqual([200, 200]);
    expect(arrivals).toEqual(['/on-time', '/unbounded']);
    // the refused request's connection is still open (an abort would have closed it)
    expect(closed).toBe(0);
  } finally {
    await agent.close();
  }
});

it('does not charge the endpoint with a timeout that ran out while this thread was held', async () => {
  // The endpoint answers at once, on a thread of its own; this one is held past the attempt's timeout, so the
  // request is written only after it. On the wall clock, the timeout fired before the connect's completion was
  // even read (docs/decisions/0057-attempt-timeout-is-the-endpoints-time.md). The hold may begin before the
  // send: Node then counts the send's timers from the hold's start, and they fire as it ends, here 50 ms past
  // the timeout.
  const rx = await startTimingReceiver();
  const agent = createAgent({ timeoutMs: 500, allowPrivate: true });
  try {
    for (const [before, after] of [
      [0, 1200],
      [300, 550],
    ] as const) {
      hold(before);
      const sent = sendOnce(agent, `${rx.url}/held-${before}`, {}, '{}', 500, systemClock);
      hold(after);
      const result = await sent;
      expect(result).toMatchObject({ status: 200, error: null });
      expect(result.durationMs).toBeGreaterThanOrEqual(after);
    }
    // the receiver's thread reports each arrival by message, which may come after its answer was read here
    expect((await rx.waitFor(2)).map((r) => r.path)).toEqual(['/held-0', '/held-300']);
  } finally {
    await agent.close();
    await rx.close();
  }
});

it('still times out an endpoint that does not answer: on time, or at most the timeout again after a hold', async () => {
  const agent = createAgent({ timeoutMs: 300, allowPrivate: true });
  try {
    const silent = await sendOnce(agent, `${url}/silent`, {}, '{}', 300, systemClock);
    expect(silent).toMatchObject({ status: null, error: 'timeout: no complete answer within 0.3 s' });
    expect(silent.durationMs).toBeLessThan(1000);

    const sent = sendOnce(agent, `${url}/silent`, {}, '{}', 300, systemClock);
    hold(800);
    const held = await sent;
    expect(held).toMatchObject({ status: null, error: 'timeout: no complete answer within 0.3 s' });
    expect(held.durationMs).toBeGreaterThanOrEqual(800);
    expect(held.durationMs).toBeLessThan(800 + 300 + 500);
  } finally {
    await agent.destroy();
  }
});
