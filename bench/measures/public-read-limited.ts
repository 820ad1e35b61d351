// The public read with the rate limiter counting every request and refusing none (limits far above the load),
// in memory and shared through a real redis-server, each against the same service with the limiter off,
// alternating. Two more service processes on the run's database: same code, same flags, only the limiter
// settings differ. Targets from issue 16: at most 5% lost in memory, at most 15% through Redis.
import type { LoadResult } from '../drivers/load.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { bestOfAlternating, childMeter, meteredRun, ROUNDS } from '../lib/rounds.ts';
import { startService } from '../lib/service.ts';
import { haveRedis, startRedis } from '../../test/support/redis.ts';
import { CONNECTIONS } from './public-read.ts';

const PATH = '/api/public/v1/payments/supported-countries';
const ABOVE_LOAD = {
  SVC_RATE_LIMIT: 'on',
  SVC_RATE_LIMIT_TEST: '1000000000',
  SVC_RATE_LIMIT_LIVE: '1000000000',
};

export const publicReadLimited: Measure = {
  name: 'public-read-limited',
  async run(b) {
    const keys = await keyPair(b);
    if (!keys) return [missing('public read, limiter in memory', 'req/s', 'feature missing (api keys)')];
    const headers = { authorization: `Bearer ${keys.publishable}` };
    const run = (url: string, duration = b.duration) =>
      b.load.call<LoadResult>('cannon', { url: url + PATH, headers, connections: CONNECTIONS, duration });
    const redis = haveRedis() ? await startRedis() : undefined;
    const memory = await startService(b.cluster.url('svc'), { env: ABOVE_LOAD });
    const shared = redis
      ? await startService(b.cluster.url('svc'), { env: { ...ABOVE_LOAD, SVC_REDIS_URL: redis.url } })
      : undefined;
    try {
      const off = () => meteredRun(b.serviceCpu, () => run(b.service.url));
      const rows = [];
      for (const [name, svc] of [
        ['in memory', memory],
        ['through Redis', shared],
      ] as const) {
        if (!svc) {
          rows.push(missing(`public read, limiter ${name}`, 'req/s', 'redis-server not installed'));
          continue;
        }
        await run(svc.url, 2); // warm-up: JIT, verification cache, first lease
        const { svc: on, base } = await bestOfAlternating(
          () => meteredRun(childMeter(svc.pid), () => run(svc.url)),
          off,
        );
        b.log(
          `public read, limiter ${name}: ${on.rps.toFixed(0)} req/s against ${base.rps.toFixed(0)} without`,
        );
        const note = `${CONNECTIONS} connections, best of ${ROUNDS} ${b.duration} s rounds; baseline: limiter off`;
        rows.push(
          row(
            `public read, limiter ${name}`,
            'req/s',
            on.errors > on.total / 100 ? null : on.rps,
            base.rps,
            { of: 'ratio', op: '>=', limit: name === 'in memory' ? 0.95 : 0.85 },
            on.errors ? `${note}; ${on.errors} non-2xx/errors` : note,
          ),
        );
      }
      return rows;
    } finally {
      await memory.stop();
      await shared?.stop();
      await redis?.stop();
    }
  },
};
