// Public write: a cart created with a secret key, one transaction per request (idempotency off: no header).
// The bare node:http baseline answers the same shape without storing anything, so the ratio is information.
import type { LoadResult } from '../drivers/load.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { bestOfAlternating, childMeter, cpuSplit, meteredRun, ROUNDS } from '../lib/rounds.ts';
import { CONNECTIONS } from './public-read.ts';

export const publicWrite: Measure = {
  name: 'public-write',
  async run(b) {
    const keys = await keyPair(b);
    const path = `/api/public/v1/stores/${b.merchant.storeId}/cart`;
    const headers = keys && { authorization: `Bearer ${keys.secret}`, 'x-svc-mode': 'test' };
    const probe = headers && (await b.api.call('POST', path, { headers }));
    if (!headers || !probe || probe.status !== 201) {
      const why = headers ? `feature missing (POST cart: ${probe?.status})` : 'feature missing (api keys)';
      return [missing('public write', 'req/s', why), missing('public write p99', 'ms', why)];
    }
    const bare = await b.helper('baselines/bare-http.ts');
    const run = (url: string, duration = b.duration) =>
      b.load.call<LoadResult>('cannon', { url, method: 'POST', headers, connections: CONNECTIONS, duration });

    await run(b.service.url + path, 2);
    const { svc, base } = await bestOfAlternating(
      () => meteredRun(b.serviceCpu, () => run(b.service.url + path), b.postgresCpu),
      () => meteredRun(childMeter(bare.pid), () => run(`http://127.0.0.1:${String(bare.info.port)}${path}`)),
    );
    b.log(
      `public write: service ${svc.rps.toFixed(0)} req/s (${svc.errors} errors), bare ${base.rps.toFixed(0)}`,
    );
    const note = `${CONNECTIONS} connections, best of ${ROUNDS}, one cart per request; baseline stores nothing`;
    return [
      row(
        'public write',
        'req/s',
        svc.rps,
        base.rps,
        undefined,
        svc.errors ? `${note}; ${svc.errors} errors` : note,
      ),
      row('public write p99', 'ms', svc.p99, base.p99),
      row(
        'public write CPU/request',
        'ms',
        svc.cpuPerOp ?? null,
        base.cpuPerOp ?? null,
        undefined,
        cpuSplit(svc),
      ),
    ];
  },
};
