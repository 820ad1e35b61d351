// Request logs (API.md section 11.6): what recording every public call costs. A second service process on the
// same database runs with SVC_REQUEST_LOG=off; public reads and writes alternate between the two, each side's
// CPU its Node process and PostgreSQL (where the log is written). Targets from the issue, at most 5% of the
// read's throughput and 10% of the write's, read as cost: at most 1/0.95 and 1/0.9 of the CPU without.
import type { LoadResult } from '../drivers/load.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { keyPair } from '../lib/keys.ts';
import { alternate, cpuOf, cpuSplit, meteredRun, rates } from '../lib/rounds.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { CONNECTIONS, READ_PATH } from './public-read.ts';

const versus = 'the same service with SVC_REQUEST_LOG=off';
const ROWS = {
  read: {
    name: 'public read CPU/request, request log on',
    unit: 'ms',
    about: 'the public read with every call recorded (Node + PostgreSQL CPU)',
    versus,
    target: { of: 'ratio', op: '<=', limit: 1.05 },
  },
  write: {
    name: 'public write CPU/request, request log on',
    unit: 'ms',
    about: 'the public cart write with every call recorded (Node + PostgreSQL CPU)',
    versus,
    target: { of: 'ratio', op: '<=', limit: 1.11 },
  },
} as const satisfies Record<string, RowSpec>;

async function pair(
  b: Bench,
  off: RunningService,
  path: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
) {
  const on = b.service;
  const cpu = (pid: number) => () => processCpuMs(pid) + b.postgresCpu();
  const run = (url: string, duration = b.duration) =>
    b.load.call<LoadResult>('cannon', {
      url: url + path,
      method,
      headers,
      connections: CONNECTIONS,
      duration,
    });
  await run(on.url, 1); // JIT and the credential caches of both
  await run(off.url, 1);
  return alternate(b, {
    on: () => meteredRun(cpu(on.pid), () => run(on.url), b.postgresCpu),
    off: () => meteredRun(cpu(off.pid), () => run(off.url), b.postgresCpu),
  });
}

export const requestLogs: Measure = {
  name: 'request-logs',
  about: 'the public read and write with the request log recording, against it off',
  rows: Object.values(ROWS),
  async run(b) {
    const keys = await keyPair(b);
    if (!keys) return Object.values(ROWS).map((spec) => missing(spec, 'feature missing (api keys)'));
    const off = await startService(b.cluster.url('svc'), { env: { SVC_REQUEST_LOG: 'off' } });
    try {
      const read = await pair(b, off, READ_PATH, 'GET', { authorization: `Bearer ${keys.publishable}` });
      const write = await pair(b, off, `/api/public/v1/stores/${b.merchant.storeId}/cart`, 'POST', {
        authorization: `Bearer ${keys.secret}`,
        'x-svc-mode': 'test',
      });
      b.log(`request log: read ${rates(read.on, read.off)}; write ${rates(write.on, write.off)}`);
      return [
        sampled(
          ROWS.read,
          cpuOf(read.on),
          cpuOf(read.off),
          `${rates(read.on, read.off)}; ${cpuSplit(read.on)}`,
        ),
        sampled(
          ROWS.write,
          cpuOf(write.on),
          cpuOf(write.off),
          `${rates(write.on, write.off)}; ${cpuSplit(write.on)}`,
        ),
      ];
    } finally {
      await off.stop();
    }
  },
};
