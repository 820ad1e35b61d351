// A rolling restart of a three-process fleet under load (API.md 12.1, Shutdown): an `api`, an `all` and a
// `worker` process on one PostgreSQL, events ingested through the two that serve the API by a load balancer
// that routes only to processes whose /readyz answers 200 (probed every 200 ms, as an orchestrator's endpoint
// controller does). Each process in turn gets SIGTERM and is replaced: it answers /readyz 503 `draining` for
// SVC_SHUTDOWN_DELAY_MS while it still serves, so the balancer takes it out before it stops accepting, then
// finishes what is under way, gives back its claims and exits 0. Every request is answered 202 (no 5xx, no
// refused connection), every accepted event is delivered, each once, none two at once, and the merchant's
// sequence is gapless. (pg project only: see vitest.config.ts.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { freePort, startProcess, stopAll, type ServiceProcess } from '../support/processes.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN, merchantWithWebhook } from './webhooks-processes.ts';

const order = sampleData('order.created');
const DELAY_MS = 1500;
const GRACE_MS = 8000;
const PROBE_MS = 200;
const ROLES = ['api', 'all', 'worker'] as const;
type Role = (typeof ROLES)[number];

let database: Awaited<ReturnType<typeof freshDatabase>>;
let client: pg.Client;
let rx: Receiver;

beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  rx = await startReceiver();
}, 120_000);
afterAll(async () => {
  await stopAll();
  await client?.end();
  await rx?.close();
  await database?.drop();
});

interface Member {
  role: Role;
  process: ServiceProcess;
  /** In rotation: its last probe answered 200. */
  ready: boolean;
}

async function start(role: Role): Promise<Member> {
  const env: Record<string, string> = {
    SVC_ROLE: role,
    SVC_SHUTDOWN_DELAY_MS: String(DELAY_MS),
    SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  };
  if (role === 'worker') env.SVC_METRICS_PORT = String(await freePort());
  return { role, process: await startProcess(database.url!, env), ready: true };
}

/** The balancer's view: each member serving the API, probed every PROBE_MS until `stop`. */
function prober(fleet: Member[]) {
  let probing: Promise<unknown> = Promise.resolve();
  const probe = () =>
    Promise.all(
      fleet
        .filter((m) => m.role !== 'worker')
        .map(async (m) => {
          m.ready = await fetch(`${m.process.url}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          );
        }),
    );
  const timer = setInterval(() => {
    probing = probing.then(probe);
  }, PROBE_MS);
  return {
    stop: async () => {
      clearInterval(timer);
      await probing;
    },
  };
}

/** Emitters sending events to a member in rotation, round robin, until `stop`: what each request got. */
function load(fleet: Member[], merchantId: string, concurrency = 8) {
  const accepted: string[] = [];
  const failures: string[] = [];
  let on = true;
  let n = 0;
  const emitter = async () => {
    while (on) {
      const serving = fleet.filter((m) => m.role !== 'worker' && m.ready);
      const target = serving[n++ % Math.max(1, serving.length)];
      if (!target) {
        failures.push('no process in rotation');
        return;
      }
      try {
        const res = await fetch(`${target.process.url}/internal/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            merchant_id: merchantId,
            mode: 'test',
            type: 'order.created',
            data: { ...order, n },
          }),
        });
        const text = await res.text();
        if (res.status === 202) accepted.push((JSON.parse(text) as { data: { id: string } }).data.id);
        else failures.push(`${target.role}: ${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        failures.push(`${target.role}: ${String((err as Error).cause ?? err)}`);
      }
    }
  };
  const running = Promise.all(Array.from({ length: concurrency }, emitter));
  return {
    accepted,
    failures,
    stop: async () => {
      on = false;
      await running;
    },
  };
}

it('restarts every process of an api, all and worker fleet one by one under load: nothing lost, no 5xx', async () => {
  const fleet: Member[] = [];
  for (const role of ROLES) fleet.push(await start(role));
  const m = await merchantWithWebhook(fleet[0]!.process.url, `${rx.url}/fleet`);
  const probes = prober(fleet);
  const traffic = load(fleet, m.merchantId);
  const moreAccepted = async (count: number) => {
    const from = traffic.accepted.length;
    await eventually(async () => traffic.accepted.length >= from + count, {
      timeoutMs: 30_000,
      what: () => `${count} more events accepted (failures: ${traffic.failures.slice(0, 3).join('; ')})`,
    });
  };
  await moreAccepted(100);

  for (const [i, old] of [...fleet].entries()) {
    const exit = new Promise<{ code: number | null; ms: number }>((resolve) => {
      const t0 = performance.now();
      old.process.child.once('exit', (code) => resolve({ code, ms: performance.now() - t0 }));
    });
    old.process.child.kill('SIGTERM');
    const { code, ms } = await exit;
    expect(code, `${old.role} exit code`).toBe(0);
    expect(ms, `${old.role} stop time`).toBeGreaterThanOrEqual(old.role === 'worker' ? 0 : DELAY_MS - 50);
    expect(ms, `${old.role} stop time`).toBeLessThan(GRACE_MS);
    fleet[i] = await start(old.role);
    await moreAccepted(100);
  }

  await traffic.stop();
  await probes.stop();
  expect(traffic.failures).toEqual([]);

  const ids = traffic.accepted;
  await rx.waitFor(ids.length, 60_000);
  const delivered = rx.received.map((r) => String(r.headers['webhook-id']));
  expect(new Set(delivered).size).toBe(ids.length);
  expect(delivered.toSorted()).toEqual(ids.toSorted());
  expect(rx.overlaps).toEqual([]);
  const { rows } = await client.query<{ sequence: string; type: string }>(
    `select sequence, type from events where merchant_id = $1 and mode = 'test' order by sequence`,
    [m.merchantId],
  );
  expect(rows.map((r) => Number(r.sequence))).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
  expect(rows.filter((r) => r.type === 'order.created')).toHaveLength(ids.length);
}, 240_000);
