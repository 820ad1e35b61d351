// The BullMQ peer: one job per delivery in Redis (the redis-server the bench starts, without persistence, as
// the bench's PostgreSQL runs without fsync), added by the ingestion route (acknowledged by Redis before its
// 202), taken by a Worker of `concurrency` that blocks on Redis for new jobs. Retries follow the service's
// schedule and jitter through a custom backoff; a job whose worker died is moved back to wait by the stalled
// check once its lock (the service's lease) has lapsed.
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { attempts, servePeer, settings, type Delivery } from './pipeline.ts';

const QUEUE = 'deliveries';
const s = settings();
const { hostname, port } = new URL(s.storeUrl);
const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
const sender = attempts(s);

class Failed extends Error {
  readonly retryInMs: number;
  constructor(retryInMs: number) {
    super('delivery attempt failed');
    this.retryInMs = retryInMs;
  }
}

const queue = new Queue<Omit<Delivery, 'step'>>(QUEUE, { connection });
const worker = new Worker<Omit<Delivery, 'step'>>(
  QUEUE,
  async (job: Job<Omit<Delivery, 'step'>>) => {
    const outcome = await sender.send({ ...job.data, step: job.attemptsMade });
    if (outcome.ok) return;
    // No attempt left (or a 410): fail for good, as the service marks the delivery failed.
    if (outcome.retryInMs === null) throw new UnrecoverableError('delivery failed');
    throw new Failed(outcome.retryInMs);
  },
  {
    connection,
    concurrency: s.concurrency,
    lockDuration: s.leaseMs,
    // Stalled jobs are looked for once a second, as the service polls for lapsed leases.
    stalledInterval: 1000,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 1000 },
    settings: { backoffStrategy: (_made, _type, err) => (err instanceof Failed ? err.retryInMs : 1000) },
  },
);
worker.on('error', (err) => process.stderr.write(`bullmq: ${err.message}\n`));
await worker.waitUntilReady();

await servePeer(s, {
  async enqueue(jobs) {
    await queue.addBulk(
      jobs.map(({ step: _step, ...data }) => ({
        name: 'deliver',
        data,
        opts: { attempts: s.schedule.length + 1, backoff: { type: 'custom' } },
      })),
    );
  },
});
