// The sender's write deadline (sender.ts): a request that undici could not write by its deadline, here because
// the thread was held between the send and the connect's completion, as an embedded database's statement
// holds it, is never sent, and its connection stays for the next request.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createAgent, sendOnce, WriteDeadlineError } from '../../src/modules/webhooks/sender.ts';

const arrivals: string[] = [];
let closed = 0;
const server = createServer((req, res) => {
  arrivals.push(req.url ?? '/');
  req.resume();
  req.on('end', () => res.end('ok'));
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
