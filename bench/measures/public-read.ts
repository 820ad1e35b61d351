// Public read: the bearer check on every public call, measured on the cheapest public route against bare
// node:http answering the same bytes. The ratio is the cost of Fastify, authentication and the envelope; a
// second baseline, Fastify alone answering the same bytes, splits that cost into the framework's and ours.
import type { LoadResult } from '../drivers/load.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { bestOfEach, childMeter, cpuSplit, meteredRun, ROUNDS } from '../lib/rounds.ts';

export const CONNECTIONS = 50;
const PATH = '/api/public/v1/payments/supported-countries';

export const publicRead: Measure = {
  name: 'public-read',
  async run(b) {
    const keys = await keyPair(b);
    const probe = keys && (await b.api.call('GET', PATH, { token: keys.publishable }));
    if (!keys || !probe || probe.status !== 200) {
      const why = keys ? `feature missing (GET ${PATH}: ${probe?.status})` : 'feature missing (api keys)';
      return [
        missing('public read', 'req/s', why, { of: 'ratio', op: '>=', limit: 0.75 }),
        missing('public read p99', 'ms', why),
      ];
    }
    const bare = await b.helper('baselines/bare-http.ts');
    const fastify = await b.helper('baselines/bare-fastify.ts');
    await bare.call('setBody', probe.text);
    await fastify.call('setBody', probe.text);
    const urlOf = (port: unknown) => `http://127.0.0.1:${String(port)}${PATH}`;
    const headers = { authorization: `Bearer ${keys.publishable}` };
    const run = (url: string, duration = b.duration) =>
      b.load.call<LoadResult>('cannon', { url, headers, connections: CONNECTIONS, duration });

    await run(b.service.url + PATH, 2); // warm-up: JIT and the verification cache
    const { svc, base, framework } = await bestOfEach({
      svc: () => meteredRun(b.serviceCpu, () => run(b.service.url + PATH), b.postgresCpu),
      base: () => meteredRun(childMeter(bare.pid), () => run(urlOf(bare.info.port))),
      framework: () => meteredRun(childMeter(fastify.pid), () => run(urlOf(fastify.info.port))),
    });
    b.log(
      `public read: service ${svc.rps.toFixed(0)} req/s (${svc.errors} errors), bare ${base.rps.toFixed(0)}, ` +
        `Fastify alone ${framework.rps.toFixed(0)}`,
    );
    const note = `${CONNECTIONS} connections, best of ${ROUNDS} ${b.duration} s rounds, publishable key`;
    return [
      row(
        'public read',
        'req/s',
        svc.errors > svc.total / 100 ? null : svc.rps,
        base.rps,
        {
          of: 'ratio',
          op: '>=',
          limit: 0.75,
        },
        svc.errors ? `${note}; ${svc.errors} non-2xx/errors` : note,
      ),
      row('public read p99', 'ms', svc.p99, base.p99),
      row(
        'public read CPU/request',
        'ms',
        svc.cpuPerOp ?? null,
        base.cpuPerOp ?? null,
        undefined,
        cpuSplit(svc),
      ),
      row(
        'public read, Fastify alone',
        'req/s',
        framework.rps,
        base.rps,
        undefined,
        'no plugin, hook or logger',
      ),
      row('Fastify alone CPU/request', 'ms', framework.cpuPerOp ?? null, base.cpuPerOp ?? null),
      row(
        'public read CPU/request vs Fastify alone',
        'ms',
        svc.cpuPerOp ?? null,
        framework.cpuPerOp ?? null,
        undefined,
        'what the service adds to the framework: hooks, authentication, headers, metrics',
      ),
    ];
  },
};
