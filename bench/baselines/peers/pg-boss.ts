// The pg-boss peer: one job per delivery in pg-boss's tables on the bench's PostgreSQL, inserted by the
// ingestion route (committed before its 202), fetched in batches with SKIP LOCKED by workers woken by
// LISTEN/NOTIFY and a 1 s poll. pg-boss retries a failed job after a fixed `retryDelay` (or its own
// exponential backoff), so the bench's schedule must be one constant step; a job whose worker died is failed
// by the supervisor once it has been active `expireInSeconds` (the service's lease), then retried.
import { PgBoss } from 'pg-boss';
import { attempts, servePeer, settings, type Delivery } from './pipeline.ts';

const QUEUE = 'deliveries';
const s = settings();
const [step = 1, ...rest] = s.schedule;
if (rest.some((x) => x !== step))
  throw new Error('pg-boss retries after one fixed delay: give a constant schedule');

const boss = new PgBoss({
  connectionString: s.storeUrl,
  max: 20,
  useListenNotify: true,
  schedule: false,
  // Expired jobs are looked for at every supervision: once a second, as the service polls for lapsed leases.
  superviseIntervalSeconds: 1,
  monitorIntervalSeconds: 1,
});
boss.on('error', (err: Error) => process.stderr.write(`pg-boss: ${err.message}\n`));
await boss.start();
await boss.createQueue(QUEUE, {
  notify: true,
  retryLimit: s.schedule.length,
  retryDelay: step,
  expireInSeconds: Math.ceil(s.leaseMs / 1000),
});
const sender = attempts(s);

// Two workers of half the concurrency each, so that one fetches while the other's batch is being sent; a
// batch ends when its slowest attempt does. Fetching continues at once while batches come back full.
await boss.work<Omit<Delivery, 'step'>>(
  QUEUE,
  {
    batchSize: Math.ceil(s.concurrency / 2),
    localConcurrency: 2,
    // Retries fall due without a NOTIFY: poll once a second, as the service does, notified or not.
    pollingIntervalSeconds: 1,
    notifyPollingIntervalSeconds: 1,
    burstWhenBatchFull: true,
    perJobResults: true,
  },
  (jobs) =>
    Promise.all(
      jobs.map(async (job) => {
        const outcome = await sender.send({ ...job.data, step: job.retryCount });
        const status = outcome.ok ? 'completed' : outcome.retryInMs === null ? 'deadletter' : 'failed';
        return { id: job.id, status } as const;
      }),
    ),
);

await servePeer(s, {
  async enqueue(jobs) {
    await boss.insert(
      QUEUE,
      jobs.map(({ step: _step, ...data }) => ({ data })),
    );
  },
});
