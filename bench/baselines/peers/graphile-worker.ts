// The graphile-worker peer: one job per delivery in graphile_worker's tables on the bench's PostgreSQL, added
// by the ingestion route (committed before its 202), taken by a pool of `concurrency` workers woken by
// LISTEN/NOTIFY (new jobs) and a 1 s poll (jobs that fall due), as the service's worker is.
// Its failed jobs are retried after exp(attempts) seconds (2.7 s, 7.4 s, ... fixed in its SQL), so a failed
// attempt here schedules the next one as a new job at the service's step, then completes: if the process dies
// between the two, the delivery is sent twice, never lost. A job locked by a worker that died is taken again
// only after 4 hours (graphile-worker's fixed lock timeout), which the crash measure shows.
import { Logger, makeWorkerUtils, run, type JobHelpers } from 'graphile-worker';
import { attempts, servePeer, settings, type Delivery } from './pipeline.ts';

const s = settings();
const silent = new Logger(() => () => {});
// The service's pool size (src/db/database.ts) for the worker pool, and as many again for ingestion.
const utils = await makeWorkerUtils({ connectionString: s.storeUrl, maxPoolSize: 20, logger: silent });
await utils.migrate();
const sender = attempts(s);

async function deliver(payload: unknown, helpers: JobHelpers) {
  const d = payload as Delivery;
  const outcome = await sender.send(d);
  if (outcome.ok || outcome.retryInMs === null) return;
  await helpers.addJob('deliver', { ...d, step: d.step + 1 } satisfies Delivery, {
    runAt: new Date(Date.now() + outcome.retryInMs),
  });
}

await run({
  connectionString: s.storeUrl,
  maxPoolSize: 20,
  concurrency: s.concurrency,
  pollInterval: 1000,
  noHandleSignals: true,
  logger: silent,
  taskList: { deliver },
});

await servePeer(s, {
  async enqueue(jobs) {
    await utils.addJobs(jobs.map((payload) => ({ identifier: 'deliver', payload })));
  },
});
