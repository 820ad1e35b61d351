// The audit page's p99 against the number of entries of the merchant reading it: a new merchant per size,
// seeded in bulk (seedAudit), the page read by CONNECTIONS dashboard readers right after the seed,
// as the audit measure does. The table holds every earlier size's entries too, as a shared table would.
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import type { Bench } from '../lib/bench.ts';
import { seedAudit } from '../lib/audit-seed.ts';
import type { Curve, Point } from './curve.ts';

const SIZES = [10_000, 1_000_000, 10_000_000];
const CONNECTIONS = 4;
const PATH = '/api/v1/merchant/developer/logs?limit=50';

async function point(b: Bench, db: pg.Client, size: number): Promise<Point> {
  const m = await b.api.signup(`Scale audit ${size}`);
  const t0 = performance.now();
  await seedAudit(db, m.merchantId, size);
  const seeded = (performance.now() - t0) / 1000;
  const url = b.service.url + PATH;
  const headers = { authorization: `Bearer ${m.token}` };
  await b.load.call('cannon', { url, headers, connections: CONNECTIONS, duration: 1 });
  const r = await b.load.call<LoadResult>('cannon', {
    url,
    headers,
    connections: CONNECTIONS,
    duration: b.duration,
  });
  // The page as audit.repository.ts writes it.
  const plan = await db.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers) select id, action, entity_type, entity_id, metadata, created_at
       from audit_logs where merchant_id >= $1 and merchant_id <= $1 and mode = 'test'
      order by merchant_id, id desc limit 51`,
    [m.merchantId],
  );
  const lines = plan.rows.map((x) => x['QUERY PLAN']);
  const exec = lines.find((l) => l.startsWith('Execution'))?.replace('Execution Time: ', '') ?? '?';
  const index = /using (\w+)/.exec(lines.join(' '))?.[1] ?? '?';
  b.log(`scale audit ${size}: p99 ${r.p99} ms, p50 ${r.p50} ms (seeded in ${seeded.toFixed(0)} s)`);
  return {
    size,
    value: r.p99,
    detail: `p50 ${r.p50} ms, ${r.rps.toFixed(0)} req/s${r.errors ? `, ${r.errors} errors` : ''}; page query ${exec} via ${index}; seeded in ${seeded.toFixed(0)} s`,
  };
}

export const auditCurve: Curve = {
  name: 'audit',
  async run(b, sizes) {
    const chosen = sizes(SIZES);
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    const points: Point[] = [];
    try {
      for (const size of chosen) points.push(await point(b, db, size));
    } finally {
      await db.end();
    }
    return [
      {
        name: 'audit page p99',
        unit: 'ms',
        of: 'entries of the merchant',
        flat: true,
        lowerIsBetter: true,
        points,
        skipped: SIZES.filter((s) => !chosen.includes(s)),
        note: `${CONNECTIONS} connections, ${b.duration} s, first page read right after the seed`,
      },
    ];
  },
};
