// Public write: a cart created with a secret key, one transaction per request (idempotency off: no header).
// The bare node:http baseline answers the same shape without storing anything, so the ratio is information:
// the cost of one durable write next to none.
import type { LoadResult } from '../drivers/load.ts';
import { missing, sampled, type Measure, type RowSpec } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { alternate, childMeter, cpuOf, cpuSplit, meteredRun, rates } from '../lib/rounds.ts';
import { CONNECTIONS } from './public-read.ts';

const ROW = {
  name: 'public write CPU/request',
  unit: 'ms',
  about: `POST a cart with a secret key, ${CONNECTIONS} connections, one INSERT each; Node + PostgreSQL CPU`,
  versus: 'bare node:http answering a cart without storing it',
} as const satisfies RowSpec;

export const publicWrite: Measure = {
  name: 'public-write',
  about: 'a cart created per request, against a bare server that stores nothing',
  rows: [ROW],
  async run(b) {
    const keys = await keyPair(b);
    const path = `/api/public/v1/stores/${b.merchant.storeId}/cart`;
    const headers = keys && { authorization: `Bearer ${keys.secret}`, 'x-svc-mode': 'test' };
    const probe = headers && (await b.api.call('POST', path, { headers }));
    if (!headers || !probe || probe.status !== 201) {
      return [
        missing(
          ROW,
          headers ? `feature missing (POST cart: ${probe?.status})` : 'feature missing (api keys)',
        ),
      ];
    }
    const bare = await b.helper('baselines/bare-http.ts');
    const bareUrl = `http://127.0.0.1:${String(bare.info.port)}${path}`;
    const run = (url: string, duration = b.duration) =>
      b.load.call<LoadResult>('cannon', { url, method: 'POST', headers, connections: CONNECTIONS, duration });
    await run(b.service.url + path, 1);
    await run(bareUrl, 1);
    const r = await alternate(b, {
      svc: () => meteredRun(b.serviceCpu, () => run(b.service.url + path), b.postgresCpu),
      base: () => meteredRun(childMeter(bare.pid), () => run(bareUrl)),
    });
    b.log(`public write: ${rates(r.svc, r.base)}`);
    return [sampled(ROW, cpuOf(r.svc), cpuOf(r.base), `${rates(r.svc, r.base)}; ${cpuSplit(r.svc)}`)];
  },
};
