// Delivery throughput: a burst of events ingested through the internal route for one webhook on a local
// receiver, deliveries per second from the first ingestion to the last success recorded in the database, and
// the CPU per delivery (Node and PostgreSQL, ingestion included), in rounds alternating with a minimal
// durable sender (INSERT, signed undici POST, UPDATE) to the same receiver. Throughput keeps its unit here:
// the drain is bound by round trips (a webhook's PER_WEBHOOK slots each wait for a claim), not by CPU, so
// the CPU row is the cost and the throughput row the rate, each with its own figure.
import { randomBytes } from 'node:crypto';
import { PER_WEBHOOK } from '../../src/modules/delivery/worker.ts';
import { missing, sampled, type Measure, type RowSpec } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { nowMs } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, succeeded, waitFor, webhooksMissing } from '../lib/webhooks.ts';

/** Events per round and second of `--duration`: 3,000 at the default, 1-2 s of drain on a quiet host. */
const EVENTS_PER_S = 1500;
const WARM_UP = 300;
const INGEST_CONCURRENCY = 64;
// The service sends at most PER_WEBHOOK attempts at a time to one webhook (a rule that protects receivers):
// the baseline gets as many, so the ratio compares the cost of the machinery per delivery, not the number of
// connections to the receiver.
const BASELINE_CONCURRENCY = PER_WEBHOOK;
const versus = 'a minimal durable sender: INSERT, signed POST, UPDATE (no ingestion)';

const ROWS = {
  rate: {
    name: 'delivery throughput',
    unit: 'deliveries/s',
    about: 'a burst of events to one webhook: first ingestion to last success recorded',
    versus,
    target: { of: 'ratio', op: '>=', limit: 1.0 },
  },
  cpu: {
    name: 'delivery CPU/delivery',
    unit: 'ms',
    about: 'the same rounds: Node + PostgreSQL CPU per delivery, ingestion included',
    versus,
  },
} as const satisfies Record<string, RowSpec>;

export const deliveryThroughput: Measure = {
  name: 'delivery-throughput',
  about: 'deliveries per second and CPU per delivery to one webhook, against a minimal durable sender',
  rows: Object.values(ROWS),
  quick: true,
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return Object.values(ROWS).map((s) => missing(s, why));
    const rx = await receiver(b);
    const m = await b.api.signup('Bench deliveries');
    const hook = await createWebhook(b.api, m, `${rx.url}/throughput`, 'order.created');
    const count = EVENTS_PER_S * b.duration;
    const probe = () => succeeded(b.api, m, hook.id);
    const sender = await b.helper('baselines/webhook-sender.ts', {
      BENCH_BASELINE_DATABASE_URL: b.cluster.url('bench_baseline'),
    });

    await b.load.call('burst', {
      ...eventsCall(b, m, 'order.created', 'warm'),
      count: WARM_UP,
      concurrency: 8,
    });
    const warm = await waitFor(probe, WARM_UP, 30_000, 100);
    if (warm.at === undefined) {
      return Object.values(ROWS).map((s) => missing(s, `warm-up: ${warm.last}/${WARM_UP} delivered in 30 s`));
    }
    const baseline = () =>
      sender.call<{ rate: number }>('run', {
        receiverUrl: `${rx.url}/baseline`,
        secret: hook.secret,
        merchantId: m.merchantId,
        prefix: `bl${randomBytes(3).toString('hex')}_`,
        count,
        concurrency: BASELINE_CONCURRENCY,
      });
    await baseline(); // its JIT and pool, as the warm-up gave the service theirs
    let done = WARM_UP;
    const rounds = await inRounds(b, async () => {
      const cpu0 = b.serviceCpu();
      const db0 = b.postgresCpu();
      const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
        ...eventsCall(b, m, 'order.created', `tp${randomBytes(3).toString('hex')}_`),
        count,
        concurrency: INGEST_CONCURRENCY,
      });
      const finished = await waitFor(probe, done + count, 120_000, 50);
      // Not all recorded within the wait: what was recorded by then, a lower bound that shows as short.
      const rate =
        finished.at === undefined
          ? (finished.last - done) / ((nowMs() - sent.started) / 1000)
          : count / ((finished.at - sent.started) / 1000);
      done = finished.last;
      const svc = {
        rate,
        cpu: (b.serviceCpu() - cpu0) / count,
        db: (b.postgresCpu() - db0) / count,
        ingested: count / ((sent.ended - sent.started) / 1000),
        errors: sent.errors,
      };
      const baseCpu0 = processCpuMs(sender.pid) + b.postgresCpu();
      const base = await baseline();
      return {
        svc,
        base: { rate: base.rate, cpu: (processCpuMs(sender.pid) + b.postgresCpu() - baseCpu0) / count },
      };
    });
    const svc = rounds.map((r) => r.svc);
    const base = rounds.map((r) => r.base);
    const errors = svc.reduce((n, r) => n + r.errors, 0);
    b.log(
      `delivery throughput: ${range(svc.map((r) => r.rate))}/s against ${range(base.map((r) => r.rate))}/s`,
    );
    return [
      sampled(
        ROWS.rate,
        svc.map((r) => r.rate),
        base.map((r) => r.rate),
        `${count} events a round, ingested at ${range(svc.map((r) => r.ingested))}/s (${INGEST_CONCURRENCY} in flight` +
          `${errors ? `, ${errors} errors` : ''}); baseline ${BASELINE_CONCURRENCY} in flight`,
      ),
      sampled(
        ROWS.cpu,
        svc.map((r) => r.cpu),
        base.map((r) => r.cpu),
        `Node ${range(svc.map((r) => r.cpu - r.db))} + PostgreSQL ${range(svc.map((r) => r.db))} ms`,
      ),
    ];
  },
};
