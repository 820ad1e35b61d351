// The bench's job-queue peers deliver what the service delivers: each peer's pipeline (its own process, its
// queue on a real PostgreSQL or redis-server) and the service take the same events over HTTP, one answered
// 500 on its first attempt, and every delivery must verify with the official `standardwebhooks` library
// under the webhook's secret, with the service's headers and the service's payload. Otherwise the bench would
// compare pipelines that do different work. PostgreSQL only: the peers' queues live in PostgreSQL and Redis,
// and the peer processes cannot open the pglite project's in-process database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { PER_WEBHOOK } from '../../src/modules/delivery/worker.ts';
import { mergeData, sampleData } from '../../src/modules/events/index.ts';
import type { Child } from '../../bench/lib/child.ts';
import { PEERS, startPeer, type PeerName } from '../../bench/lib/peers.ts';
import type { PeerSettings } from '../../bench/baselines/peers/pipeline.ts';
import { DB_KIND, freshDatabase, startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { freePort } from '../support/ports.ts';
import { haveRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { startReceiver, type Received, type Receiver } from '../webhooks/receiver.ts';
import { createWebhook, INTERNAL_TOKEN, type CreatedWebhook } from '../webhooks/helpers.ts';

const EVENTS = 4;
// The second event's first attempt fails: retried after the schedule's one step, 1 s +-20%.
const FAILING = 1;
const SCHEDULE = [1];

describe.skipIf(DB_KIND !== 'pg')('job-queue peers of the bench', () => {
  let svc: TestService;
  let m: TestMerchant;
  let rx: Receiver;
  let wh: CreatedWebhook;
  let redis: RedisServer | undefined;
  const dropped: (() => Promise<void>)[] = [];
  const children: Child[] = [];
  const seen = new Set<string>();

  beforeAll(async () => {
    // Fails the first attempt of each pipeline's FAILING-th event; everything else succeeds.
    rx = await startReceiver((r: Received) => {
      const id = String(r.headers['webhook-id']);
      const first = !seen.has(id);
      seen.add(id);
      return { status: first && id.endsWith(`_${FAILING}`) ? 500 : 204 };
    });
    svc = await startTestService({
      workers: true,
      listen: true,
      env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(',') },
    });
    m = await signupMerchant(svc.app);
    wh = await createWebhook(svc, m, `${rx.url}/service`, ['order.created']);
    if (haveRedis()) redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await Promise.all(dropped.map((drop) => drop()));
    await redis?.stop();
    await svc?.close();
    await rx?.close();
  });

  async function storeOf(peer: PeerName): Promise<string> {
    if (PEERS[peer].store === 'redis') {
      if (!redis) throw new Error('redis-server not installed');
      return redis.url;
    }
    const db = await freshDatabase();
    dropped.push(db.drop);
    return db.url!;
  }

  async function startPipeline(peer: PeerName): Promise<string> {
    const settings: PeerSettings = {
      port: await freePort(),
      internalToken: INTERNAL_TOKEN,
      webhooks: [
        {
          id: wh.id,
          merchantId: m.merchantId,
          mode: 'test',
          url: `${rx.url}/${peer}`,
          secret: wh.secret,
          events: ['order.created'],
        },
      ],
      schedule: SCHEDULE,
      timeoutMs: 5000,
      concurrency: PER_WEBHOOK,
      leaseMs: 12_000,
      storeUrl: await storeOf(peer),
    };
    const child = await startPeer(peer, settings);
    children.push(child);
    return `http://127.0.0.1:${settings.port}`;
  }

  async function ingest(url: string, name: string) {
    for (let n = 0; n < EVENTS; n++) {
      const res = await fetch(`${url}/internal/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: `evt_${name}_${n}`,
          merchant_id: m.merchantId,
          mode: 'test',
          type: 'order.created',
          data: mergeData(sampleData('order.created'), { id: `ord_${n}` }),
        }),
      });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ data: { id: `evt_${name}_${n}`, deliveries: 1 } });
    }
  }

  /** Every request of one pipeline, verified; the body with its own id and time taken out, by event number. */
  function verified(name: string) {
    const verifier = new Webhook(wh.secret);
    return rx.received
      .filter((r) => r.path === `/${name}`)
      .map((r) => {
        const body = verifier.verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;
        expect(r.headers['webhook-id']).toBe(body.id);
        const n = Number(String(body.id).split('_').at(-1));
        return {
          n,
          headers: Object.keys(r.headers)
            .filter((h) => h !== 'host' && h !== 'connection')
            .sort(),
          agent: r.headers['user-agent'],
          keys: Object.keys(body),
          body: { ...body, id: n, timestamp: typeof body.timestamp },
        };
      })
      .sort((a, b) => a.n - b.n);
  }

  it('delivers every event as the service signs it, on each peer, with the failing one retried', async () => {
    const names: PeerName[] = ['graphile-worker', 'pg-boss', ...(redis ? (['bullmq'] as const) : [])];
    const urls = await Promise.all(names.map(startPipeline));
    await Promise.all([ingest(svc.url, 'service'), ...names.map((name, i) => ingest(urls[i]!, name))]);
    // Each pipeline: every event once, and the failing one a second time.
    for (const name of ['service', ...names]) {
      await rx
        .waitFor(EVENTS + 1, 15_000, (r) => r.path === `/${name}`)
        .catch((err: Error) => {
          throw new Error(`${name}: ${err.message}`);
        });
    }
    const service = verified('service');
    expect(service.map((d) => d.n)).toEqual([0, 1, 1, 2, 3]);
    for (const name of names) {
      const peer = verified(name);
      expect({ name, n: peer.map((d) => d.n) }).toEqual({ name, n: [0, 1, 1, 2, 3] });
      // The same header names, user agent, payload fields in the same order, and the same values.
      expect(peer.map(({ n: _n, ...d }) => d)).toEqual(service.map(({ n: _n, ...d }) => d));
    }
  });
});
