// Public read: the bearer check on every public call, measured on the cheapest public route against bare
// node:http answering the same bytes. The CPU ratio is the cost of Fastify, authentication and the envelope;
// a second baseline, Fastify alone answering the same bytes, splits that cost into the framework's and ours.
// The target was "at least 0.75 of the bare server's requests per second"; as cost per request that is at
// most 1/0.75 = 1.33x its CPU (both saturate a core on a quiet machine, so the two read alike there, and
// only the CPU keeps its meaning on a busy one).
import type { LoadResult } from '../drivers/load.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { alternate, childMeter, cpuOf, cpuSplit, meteredRun, rates } from '../lib/rounds.ts';

export const CONNECTIONS = 50;
export const READ_PATH = '/api/public/v1/payments/supported-countries';

const ROWS = {
  cpu: {
    name: 'public read CPU/request',
    unit: 'ms',
    about: `GET supported-countries with a publishable key, ${CONNECTIONS} connections; service Node + PostgreSQL CPU`,
    versus: 'bare node:http answering the same bytes',
    target: { of: 'ratio', op: '<=', limit: 1.33 },
  },
  framework: {
    name: 'public read CPU/request vs Fastify alone',
    unit: 'ms',
    about: 'the same rounds against Fastify with no plugin, hook or logger: what the service adds to it',
    versus: 'Fastify alone answering the same bytes',
  },
} as const satisfies Record<string, RowSpec>;

/** Warm-up (JIT, the verification cache), then rounds of service, bare server and Fastify alone. */
async function measure(b: Bench, token: string, body: string) {
  const bare = await b.helper('baselines/bare-http.ts');
  const fastify = await b.helper('baselines/bare-fastify.ts');
  await bare.call('setBody', body);
  await fastify.call('setBody', body);
  const urlOf = (port: unknown) => `http://127.0.0.1:${String(port)}${READ_PATH}`;
  const headers = { authorization: `Bearer ${token}` };
  const run = (url: string, duration = b.duration) =>
    b.load.call<LoadResult>('cannon', { url, headers, connections: CONNECTIONS, duration });
  // The first measure of a run: the service's first second ran at 0.42 ms a call against 0.29 a minute later.
  await run(b.service.url + READ_PATH, 4);
  for (const url of [urlOf(bare.info.port), urlOf(fastify.info.port)]) await run(url, 1);
  return alternate(b, {
    svc: () => meteredRun(b.serviceCpu, () => run(b.service.url + READ_PATH), b.postgresCpu),
    base: () => meteredRun(childMeter(bare.pid), () => run(urlOf(bare.info.port))),
    framework: () => meteredRun(childMeter(fastify.pid), () => run(urlOf(fastify.info.port))),
  });
}

export const publicRead: Measure = {
  name: 'public-read',
  about: 'the cheapest public route, against bare node:http and Fastify alone',
  rows: Object.values(ROWS),
  quick: true,
  async run(b) {
    const keys = await keyPair(b);
    const probe = keys && (await b.api.call('GET', READ_PATH, { token: keys.publishable }));
    if (!keys || !probe || probe.status !== 200) {
      const why = keys
        ? `feature missing (GET ${READ_PATH}: ${probe?.status})`
        : 'feature missing (api keys)';
      return Object.values(ROWS).map((spec) => missing(spec, why));
    }
    const r = await measure(b, keys.publishable, probe.text);
    b.log(`public read: ${rates(r.svc, r.base)}; Fastify alone ${rates(r.framework)}`);
    return [
      sampled(ROWS.cpu, cpuOf(r.svc), cpuOf(r.base), `${rates(r.svc, r.base)}; ${cpuSplit(r.svc)}`),
      sampled(ROWS.framework, cpuOf(r.svc), cpuOf(r.framework), `Fastify alone ${rates(r.framework)}`),
    ];
  },
};
