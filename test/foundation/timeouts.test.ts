// Slow clients cannot hold the server: a flood of connections that trickle their headers (slowloris) or
// their body is cut once the configured time is up, and /healthz keeps answering all the while.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    listen: true,
    env: { SVC_HTTP_HEADERS_TIMEOUT_MS: '1000', SVC_HTTP_REQUEST_TIMEOUT_MS: '2000' },
  });
}, 180_000);
afterAll(async () => svc?.close());

interface Slow {
  socket: Socket;
  openedAt: number;
  closedAt?: number;
  answer: string;
  timer?: NodeJS.Timeout;
}

/** Opens a connection that sends `start`, then `drip` every 200 ms, and never finishes its request. */
function slowClient(start: string, drip: string): Promise<Slow> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const slow: Slow = { socket, openedAt: Date.now(), answer: '' };
    socket.on('data', (d: Buffer) => (slow.answer += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      slow.closedAt = Date.now();
      clearInterval(slow.timer);
    });
    socket.once('connect', () => {
      slow.openedAt = Date.now();
      socket.write(start);
      slow.timer = setInterval(() => socket.writable && socket.write(drip), 200);
      resolve(slow);
    });
    socket.once('error', reject);
  });
}

async function floodAndProbe(clients: Slow[], limitMs: number) {
  // /healthz answers while the flood holds its sockets, probed until the service has cut every one
  const probes: number[] = [];
  await eventually(
    async () => {
      if (clients.every((c) => c.closedAt !== undefined)) return true;
      const t0 = Date.now();
      const res = await fetch(`${svc.url}/healthz`);
      expect(res.status).toBe(200);
      probes.push(Date.now() - t0);
      return false;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: 'the service to cut every slow client' },
  );
  const open = clients.filter((c) => c.closedAt === undefined);
  clients.forEach((c) => c.socket.destroy());
  expect(open).toHaveLength(0);
  expect(probes.length).toBeGreaterThan(0);
  // cut after the limit, not before it, and within the 1 s check interval plus scheduling slack
  for (const c of clients) {
    expect(c.closedAt! - c.openedAt).toBeGreaterThanOrEqual(limitMs - 100);
    expect(c.closedAt! - c.openedAt).toBeLessThan(limitMs + 10_000);
  }
  return probes;
}

describe('a slow-client flood', () => {
  it('cuts 200 connections that trickle their headers, and /healthz keeps answering', async () => {
    const clients = await Promise.all(
      Array.from({ length: 200 }, () =>
        slowClient('GET /healthz HTTP/1.1\r\nHost: svc\r\n', 'X-Slow: 1\r\n'),
      ),
    );
    await floodAndProbe(clients, 1000);
    expect(clients.filter((c) => c.answer.startsWith('HTTP/1.1 408')).length).toBeGreaterThan(0);
  });

  it('cuts 100 connections that trickle their body after the request timeout', async () => {
    const head =
      'POST /api/v1/merchant/auth/login HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\n' +
      'Content-Length: 100000\r\n\r\n{"email":"';
    const clients = await Promise.all(Array.from({ length: 100 }, () => slowClient(head, 'a')));
    await floodAndProbe(clients, 2000);
  });
});

describe('configuration', () => {
  it('has defaults, and reads SVC_HTTP_*', () => {
    const base = { SVC_MASTER_KEY: Buffer.alloc(32).toString('base64'), DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig(base).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      idleTimeoutMs: 120_000,
    });
    const set = loadConfig({
      ...base,
      SVC_HTTP_HEADERS_TIMEOUT_MS: '5000',
      SVC_HTTP_REQUEST_TIMEOUT_MS: '6000',
      SVC_HTTP_KEEP_ALIVE_TIMEOUT_MS: '7000',
      SVC_HTTP_IDLE_TIMEOUT_MS: '8000',
    }).http;
    expect(set).toEqual({
      headersTimeoutMs: 5000,
      requestTimeoutMs: 6000,
      keepAliveTimeoutMs: 7000,
      idleTimeoutMs: 8000,
    });
    expect(() => loadConfig({ ...base, SVC_HTTP_HEADERS_TIMEOUT_MS: 'soon' })).toThrow(
      /SVC_HTTP_HEADERS_TIMEOUT_MS/,
    );
    expect(() =>
      loadConfig({ ...base, SVC_HTTP_HEADERS_TIMEOUT_MS: '9000', SVC_HTTP_REQUEST_TIMEOUT_MS: '5000' }),
    ).toThrow(/SVC_HTTP_HEADERS_TIMEOUT_MS must not exceed/);
  });
});
