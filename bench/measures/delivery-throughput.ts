// Delivery throughput: EVENTS events ingested through the internal route for one webhook on a local receiver,
// deliveries per second from the first ingestion to the last success recorded in the database, against a
// minimal durable sender (INSERT, signed undici POST, UPDATE) to the same receiver in the same run.
import { randomBytes } from 'node:crypto';
import { PER_WEBHOOK } from '../../src/modules/webhooks/delivery/worker.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { nowMs } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, succeeded, waitFor, webhooksMissing } from '../lib/webhooks.ts';

const EVENTS = 5000;
const WARM_UP = 300;
const INGEST_CONCURRENCY = 64;
// The service sends at most PER_WEBHOOK attempts at a time to one webhook (a rule that protects receivers):
// the baseline gets as many, so the ratio compares the cost of the machinery per delivery, not the number of
// connections to the receiver.
const BASELINE_CONCURRENCY = PER_WEBHOOK;
const TARGET = { of: 'ratio', op: '>=', limit: 1.0 } as const;

export const deliveryThroughput: Measure = {
  name: 'delivery-throughput',
  async run(b) {
    const why = await webhooksMissing(b);
    if (why) return [missing('delivery throughput', 'deliveries/s', why, TARGET)];
    const rx = await receiver(b);
    const m = await b.api.signup('Bench deliveries');
    const hook = await createWebhook(b.api, m, `${rx.url}/throughput`, 'order.created');
    const count = Math.min(EVENTS, b.duration * 500);
    const probe = () => succeeded(b.api, m, hook.id);

    await b.load.call('burst', {
      ...eventsCall(b, m, 'order.created', 'warm'),
      count: WARM_UP,
      concurrency: 8,
    });
    const warm = await waitFor(probe, WARM_UP, 30_000, 100);
    if (warm.at === undefined) {
      return [
        missing(
          'delivery throughput',
          'deliveries/s',
          `warm-up: ${warm.last}/${WARM_UP} delivered in 30 s`,
          TARGET,
        ),
      ];
    }

    const prefix = `tp${randomBytes(3).toString('hex')}_`;
    const svcCpu0 = b.serviceCpu();
    const svcDb0 = b.postgresCpu();
    const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
      ...eventsCall(b, m, 'order.created', prefix),
      count,
      concurrency: INGEST_CONCURRENCY,
    });
    const done = await waitFor(probe, WARM_UP + count, 120_000, 100);
    const svcCpu = (b.serviceCpu() - svcCpu0) / count;
    const svcDb = (b.postgresCpu() - svcDb0) / count;
    const ingestRate = count / ((sent.ended - sent.started) / 1000);
    // Not all recorded within the wait: what was recorded by then, a lower bound that shows as short.
    const svcRate =
      done.at === undefined
        ? (done.last - WARM_UP) / ((nowMs() - sent.started) / 1000)
        : count / ((done.at - sent.started) / 1000);

    const sender = await b.helper('baselines/webhook-sender.ts', {
      BENCH_BASELINE_DATABASE_URL: b.cluster.url('bench_baseline'),
    });
    const baseCpu0 = processCpuMs(sender.pid) + b.postgresCpu();
    const base = await sender.call<{ rate: number; failures: number }>('run', {
      receiverUrl: `${rx.url}/baseline`,
      secret: hook.secret,
      merchantId: m.merchantId,
      prefix: `bl${randomBytes(3).toString('hex')}_`,
      count,
      concurrency: BASELINE_CONCURRENCY,
    });
    const baseCpu = (processCpuMs(sender.pid) + b.postgresCpu() - baseCpu0) / count;
    b.log(
      `delivery throughput: service ${svcRate?.toFixed(0)}/s (ingested at ${ingestRate.toFixed(0)}/s, ` +
        `${sent.errors} errors), baseline ${base.rate.toFixed(0)}/s`,
    );
    const note =
      svcRate === null
        ? `only ${done.last - WARM_UP}/${count} succeeded within 120 s (rate so far)`
        : `${count} events, ingested at ${ingestRate.toFixed(0)}/s (${INGEST_CONCURRENCY} in flight); baseline ${BASELINE_CONCURRENCY} in flight`;
    return [
      row('delivery throughput', 'deliveries/s', svcRate, base.rate, TARGET, note),
      row(
        'delivery CPU/delivery',
        'ms',
        svcCpu,
        baseCpu,
        undefined,
        `Node ${(svcCpu - svcDb).toFixed(2)} ms + PostgreSQL ${svcDb.toFixed(2)} ms, ingestion included`,
      ),
    ];
  },
};
