// The delivery pipelines the peer measures compare, each its own process with its own store: the service
// (`npm start` on a database of its own in the bench's cluster) and the job-queue peers (bench/baselines/
// peers/), all configured alike: the same webhook and secret, the same short retry schedule, attempt timeout
// and lease, the same number of attempts in flight, and the same ingestion route taking the same events.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PER_WEBHOOK } from '../../src/modules/delivery/worker.ts';
import { startRedis, type RedisServer } from '../../test/support/redis.ts';
import type { PeerSettings, PeerWebhook } from '../baselines/peers/pipeline.ts';
import { Api } from './api.ts';
import type { Bench } from './bench.ts';
import type { Child } from './child.ts';
import { processCpuMs, redisCpu } from './cpu.ts';
import { PEERS, startPeer, type PeerName } from './peers.ts';
import { freePort, startService, type RunningService } from './service.ts';
import { createWebhook, receiver } from './webhooks.ts';

/** Five retries 1 s apart: short enough that retries finish within a run; pg-boss takes only a fixed delay. */
const SCHEDULE = [1, 1, 1, 1, 1];
/**
 * The receiver answers within 50 ms, so 2 s never times out, and it keeps the lease at 6 s: each crash round
 * waits for the killed process's leases to lapse.
 */
const TIMEOUT_MS = 2000;
/** The service's lease for that timeout (leaseMs() of the delivery worker); the peers' lock or expiry. */
export const LEASE_MS = 2 * TIMEOUT_MS + 2000;
export const EVENT_TYPE = 'order.created';

export type PipelineName = 'service' | PeerName;

export interface Pipeline {
  name: PipelineName;
  /** The ingestion route. */
  eventsUrl: string;
  token: string;
  merchantId: string;
  /** CPU ms so far of the pipeline's Node process and of its store (the PostgreSQL cluster or redis-server). */
  cpu(): Promise<{ node: number; store: number }>;
  /** SIGKILL, then the same process started again on the same port and store, ready to serve. */
  crashAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

export interface Pipelines {
  /** The service first, then the peers asked for. */
  all: Pipeline[];
  receiver: Child;
  stop(): Promise<void>;
}

async function createDatabase(b: Bench, prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: b.cluster.url('postgres') });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return b.cluster.url(name);
}

async function servicePipeline(b: Bench, url: (name: string) => string) {
  const databaseUrl = await createDatabase(b, 'svc_peers');
  const port = await freePort();
  const env = {
    SVC_WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','),
    SVC_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    // Fixed across a restart: the new process must open the secrets the first one sealed.
    SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    SVC_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
  };
  let svc: RunningService = await startService(databaseUrl, { port, env });
  const api = new Api(svc.url);
  const m = await api.signup('Bench pipelines');
  const hook = await createWebhook(api, m, url('service'), EVENT_TYPE);
  const pipeline: Pipeline = {
    name: 'service',
    eventsUrl: `${svc.url}/internal/v1/events`,
    token: env.SVC_INTERNAL_TOKEN,
    merchantId: m.merchantId,
    cpu: async () => ({ node: processCpuMs(svc.pid), store: b.postgresCpu() }),
    async crashAndRestart() {
      process.kill(svc.pid, 'SIGKILL');
      await svc.stop();
      svc = await startService(databaseUrl, { port, env });
    },
    stop: () => svc.stop(),
  };
  return { pipeline, merchantId: m.merchantId, hook };
}

async function peerPipeline(
  b: Bench,
  name: PeerName,
  webhook: PeerWebhook,
  redis: () => Promise<RedisServer>,
): Promise<Pipeline> {
  const store =
    PEERS[name].store === 'redis'
      ? (await redis()).url
      : await createDatabase(b, `bench_${name.replace('-', '_')}`);
  const settings: PeerSettings = {
    port: await freePort(),
    internalToken: randomBytes(24).toString('base64url'),
    webhooks: [webhook],
    schedule: SCHEDULE,
    timeoutMs: TIMEOUT_MS,
    concurrency: PER_WEBHOOK,
    leaseMs: LEASE_MS,
    storeUrl: store,
  };
  let child = await startPeer(name, settings);
  const redisMeter = PEERS[name].store === 'redis' ? redisCpu(store) : undefined;
  return {
    name,
    eventsUrl: `http://127.0.0.1:${settings.port}/internal/v1/events`,
    token: settings.internalToken,
    merchantId: webhook.merchantId,
    cpu: async () => ({
      node: processCpuMs(child.pid),
      store: redisMeter ? await redisMeter.ms() : b.postgresCpu(),
    }),
    async crashAndRestart() {
      process.kill(child.pid, 'SIGKILL');
      await child.stop();
      child = await startPeer(name, settings);
    },
    async stop() {
      await redisMeter?.close();
      await child.stop();
    },
  };
}

/**
 * The service and the peers `names`, each delivering to the bench receiver under `/${path}/${pipeline}` (the
 * path says how the receiver answers: see drivers/receiver.ts).
 */
export async function startPipelines(b: Bench, names: readonly PeerName[], path: string): Promise<Pipelines> {
  const rx = await receiver(b);
  const url = (name: string) => `${rx.url}/${path}/${name}`;
  let redis: Promise<RedisServer> | undefined;
  const started: Pipeline[] = [];
  try {
    const svc = await servicePipeline(b, url);
    started.push(svc.pipeline);
    for (const name of names) {
      const webhook: PeerWebhook = {
        id: svc.hook.id,
        merchantId: svc.merchantId,
        mode: 'test',
        url: url(name),
        secret: svc.hook.secret,
        events: [EVENT_TYPE],
      };
      started.push(await peerPipeline(b, name, webhook, () => (redis ??= startRedis())));
    }
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    await (await redis)?.stop();
    throw err;
  }
  return {
    all: started,
    receiver: rx.child,
    async stop() {
      await Promise.all(started.map((p) => p.stop()));
      await (await redis)?.stop();
    },
  };
}
