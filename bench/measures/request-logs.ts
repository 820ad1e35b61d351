// Request logs (API.md section 11.6): what recording every public call costs, and what the recorder can take.
// A second service process on the same database runs with SVC_REQUEST_LOG=off; public reads and writes
// alternate between the two, best of ROUNDS each, with the CPU per request of each process and PostgreSQL.
// Then the recorder alone in a helper process: the rows per second it writes when fed as fast as its buffer
// takes, what it drops when fed at twice that, and the size of an entry on disk.
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import { missing, row, type Measure, type Row } from '../lib/bench.ts';
import { keyPair } from '../lib/keys.ts';
import { bestOfEach, cpuSplit, meteredRun, ROUNDS } from '../lib/rounds.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { startService } from '../lib/service.ts';
import { CONNECTIONS } from './public-read.ts';

const READ = '/api/public/v1/payments/supported-countries';
const FLOOD_SECONDS = 5;

interface RecorderRun {
  offered: number;
  writtenInTime: number;
  written: number;
  dropped: number;
  failed: number;
  seconds: number;
}

async function bytesPerEntry(url: string): Promise<{ bytes: number; rows: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('vacuum analyze request_logs');
    const { rows } = await client.query<{ bytes: string; rows: string }>(`
      select (select coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)
                from pg_inherits i join pg_class p on p.oid = i.inhparent where p.relname = 'request_logs')
               + pg_total_relation_size('request_log_counts') as bytes,
             (select count(*) from request_logs) as rows`);
    return { bytes: Number(rows[0]!.bytes), rows: Number(rows[0]!.rows) };
  } finally {
    await client.end();
  }
}

export const requestLogs: Measure = {
  name: 'request-logs',
  async run(b) {
    const keys = await keyPair(b);
    if (!keys) return [missing('request log, public read', 'req/s', 'feature missing (api keys)')];
    const off = await startService(b.cluster.url('svc'), { env: { SVC_REQUEST_LOG: 'off' } });
    const rows: Row[] = [];
    try {
      const on = b.service;
      const cpu = (pid: number) => () => processCpuMs(pid) + b.postgresCpu();
      const cannon = (
        url: string,
        method: 'GET' | 'POST',
        headers: Record<string, string>,
        duration = b.duration,
      ) => b.load.call<LoadResult>('cannon', { url, method, headers, connections: CONNECTIONS, duration });
      const pair = async (path: string, method: 'GET' | 'POST', headers: Record<string, string>) => {
        await cannon(on.url + path, method, headers, 2); // warm-up of both: JIT and the credential caches
        await cannon(off.url + path, method, headers, 2);
        return bestOfEach({
          on: () => meteredRun(cpu(on.pid), () => cannon(on.url + path, method, headers), b.postgresCpu),
          off: () => meteredRun(cpu(off.pid), () => cannon(off.url + path, method, headers), b.postgresCpu),
        });
      };
      const read = await pair(READ, 'GET', { authorization: `Bearer ${keys.publishable}` });
      const write = await pair(`/api/public/v1/stores/${b.merchant.storeId}/cart`, 'POST', {
        authorization: `Bearer ${keys.secret}`,
        'x-svc-mode': 'test',
      });
      b.log(
        `request log: read ${read.on.rps.toFixed(0)} on / ${read.off.rps.toFixed(0)} off req/s, ` +
          `write ${write.on.rps.toFixed(0)} / ${write.off.rps.toFixed(0)}`,
      );
      const note = (r: { on: LoadResult; off: LoadResult }) =>
        `${CONNECTIONS} connections, best of ${ROUNDS} alternating, recording off as the baseline` +
        (r.on.errors || r.off.errors ? `; errors ${r.on.errors} on, ${r.off.errors} off` : '');
      rows.push(
        row(
          'public read, request log on',
          'req/s',
          read.on.rps,
          read.off.rps,
          { of: 'ratio', op: '>=', limit: 0.95 },
          note(read),
        ),
        row(
          'public read CPU/request, log on',
          'ms',
          read.on.cpuPerOp ?? null,
          read.off.cpuPerOp ?? null,
          undefined,
          cpuSplit(read.on),
        ),
        row(
          'public write, request log on',
          'req/s',
          write.on.rps,
          write.off.rps,
          { of: 'ratio', op: '>=', limit: 0.9 },
          note(write),
        ),
        row(
          'public write CPU/request, log on',
          'ms',
          write.on.cpuPerOp ?? null,
          write.off.cpuPerOp ?? null,
          undefined,
          cpuSplit(write.on),
        ),
      );
    } finally {
      await off.stop();
    }

    const recorder = await b.helper('tools/request-recorder.ts', {
      DATABASE_URL: b.cluster.url('svc'),
      SVC_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    const flood = await recorder.call<RecorderRun>('flood', { seconds: FLOOD_SECONDS });
    const sustained = flood.writtenInTime / flood.seconds;
    const paced = await recorder.call<RecorderRun>('pace', { seconds: FLOOD_SECONDS, rate: 2 * sustained });
    const size = await bytesPerEntry(b.cluster.url('svc'));
    b.log(
      `request recorder: ${sustained.toFixed(0)} rows/s sustained; at ${(2 * sustained).toFixed(0)}/s offered ` +
        `${paced.offered}, written ${paced.written}, dropped ${paced.dropped}; ${size.rows} rows, ` +
        `${(size.bytes / Math.max(1, size.rows)).toFixed(0)} bytes each`,
    );
    rows.push(
      row(
        'request recorder, rows written',
        'rows/s',
        sustained,
        null,
        undefined,
        `fed as fast as its buffer takes, ${FLOOD_SECONDS} s; COPY, one connection`,
      ),
      row(
        'request recorder at 2x, dropped',
        '%',
        paced.offered ? (100 * paced.dropped) / paced.offered : null,
        null,
        undefined,
        `${paced.dropped} of ${paced.offered} offered at ${(2 * sustained).toFixed(0)}/s; ${paced.written} written, ${paced.failed} failed`,
      ),
      row(
        'request log size per entry',
        'bytes',
        size.rows ? size.bytes / size.rows : null,
        null,
        undefined,
        `${size.rows} entries, indexes and day counters included`,
      ),
    );
    return rows;
  },
};
