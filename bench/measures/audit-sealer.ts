// Audit sealer: how far sealing trails the writes at RATE entries per second on one merchant. The bench writes
// the entries itself, in the statement shape of the service's writers (the audit module's `auditCtes`: the
// entry, its place in the sealer's queue, its counters), TICK_MS at a time on its own connection, while the
// service's sealer loop chains them. Every SAMPLE_MS it reads the age of the oldest entry still unsealed: the
// trail. Each round writes for the run's load duration plus two seconds, then waits for the queue to drain;
// the service's own Node CPU per entry is the sealer's (the process serves nothing else meanwhile).
import pg from 'pg';
import { newId } from '../../src/lib/ids.ts';
import { auditCtes } from '../../src/modules/audit/index.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { missing, sampled, type Bench, type Measure, type RowSpec } from '../lib/bench.ts';
import { inRounds, range } from '../lib/rounds.ts';
import { percentile, sleep } from '../lib/stats.ts';

const RATE = 2_000;
const TICK_MS = 50;
const SAMPLE_MS = 100;

const ROWS = {
  trail: {
    name: `audit sealer trail at ${RATE}/s p99`,
    unit: 'ms',
    about: `the age of the oldest unsealed entry, every ${SAMPLE_MS} ms, while ${RATE} entries/s are written on one merchant`,
    target: { of: 'value', op: '<=', limit: 5_000 },
  },
  cpu: {
    name: 'audit sealer Node CPU/entry',
    unit: 'ms',
    about:
      "the same rounds: the service process's CPU per entry sealed (PostgreSQL's is shared with the writes)",
  },
} as const satisfies Record<string, RowSpec>;

const WRITE = `
with entries as (
  select * from unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[])
    as e(log_id, log_at, merchant_id, mode, action, entity_type, entity_id, metadata)
), ${auditCtes('entries')}
select 1`;

const OLDEST_UNSEALED_MS = `
select coalesce(extract(epoch from clock_timestamp() - min(a.created_at)) * 1000, 0)::float8 as ms
  from audit_pending p join audit_logs a on a.id = p.log_id where a.merchant_id = $1`;

async function writeTick(db: pg.Client, merchantId: string, n: number): Promise<void> {
  const at = new Date();
  const ids = Array.from({ length: n }, () => newId('log', at.getTime()));
  const all = <T>(v: T) => ids.map(() => v);
  await db.query(WRITE, [
    ids,
    all(at.toISOString()),
    all(merchantId),
    all('test'),
    all('oauth.token_refreshed'),
    all('oauth_grant'),
    ids.map((_, i) => `grant_${i % 50}`),
    all(
      '{"actor":{"type":"app","id":"app_bench"},"ip":"127.0.0.1","user_agent":"bench/1.0","request_id":null}',
    ),
  ]);
}

/** One round: RATE entries/s for `seconds`, the trail sampled meanwhile, then the drain. */
async function round(b: Bench, writer: pg.Client, probe: pg.Client, merchantId: string, seconds: number) {
  const perTick = (RATE * TICK_MS) / 1000;
  const cpu0 = processCpuMs(b.service.pid);
  const t0 = performance.now();
  const samples: number[] = [];
  let written = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await probe.query<{ ms: number }>(OLDEST_UNSEALED_MS, [merchantId]);
      samples.push(rows[0]!.ms);
      await sleep(SAMPLE_MS);
    }
  })();
  // Ticks at fixed times from the start: a late tick writes its share at once, so the rate holds.
  for (let tick = 0; tick * TICK_MS < seconds * 1000; tick++) {
    const wait = t0 + tick * TICK_MS - performance.now();
    if (wait > 0) await sleep(wait);
    await writeTick(writer, merchantId, perTick);
    written += perTick;
  }
  const stopped = performance.now();
  for (;;) {
    const { rows } = await probe.query<{ ms: number }>(OLDEST_UNSEALED_MS, [merchantId]);
    if (rows[0]!.ms === 0) break;
    await sleep(20);
  }
  sampling = false;
  await sampler;
  samples.sort((x, y) => x - y);
  return {
    p99: percentile(samples, 99),
    max: samples.at(-1)!,
    drainMs: performance.now() - stopped,
    rate: written / ((stopped - t0) / 1000),
    cpu: (processCpuMs(b.service.pid) - cpu0) / written,
  };
}

export const auditSealer: Measure = {
  name: 'audit-sealer',
  about: `the sealer's trail behind ${RATE} audit entries/s, and its CPU per entry`,
  rows: Object.values(ROWS),
  async run(b) {
    const m = await b.api.signup('Bench sealer');
    const writer = new pg.Client({ connectionString: b.cluster.url('svc') });
    const probe = new pg.Client({ connectionString: b.cluster.url('svc') });
    await Promise.all([writer.connect(), probe.connect()]);
    try {
      const queue = await probe.query<{ t: string | null }>(`select to_regclass('audit_pending')::text as t`);
      if (!queue.rows[0]?.t)
        return Object.values(ROWS).map((s) => missing(s, 'feature missing (no audit chain)'));
      const rs = await inRounds(b, () => round(b, writer, probe, m.merchantId, b.duration + 2));
      const note =
        `max ${range(rs.map((r) => r.max))} ms; written at ${range(rs.map((r) => r.rate))}/s for ` +
        `${b.duration + 2} s a round; drained ${range(rs.map((r) => r.drainMs))} ms after the last write`;
      b.log(`audit sealer: p99 ${range(rs.map((r) => r.p99))} ms; ${note}`);
      return [
        sampled(
          ROWS.trail,
          rs.map((r) => r.p99),
          [],
          note,
        ),
        sampled(
          ROWS.cpu,
          rs.map((r) => r.cpu),
        ),
      ];
    } finally {
      await Promise.all([writer.end(), probe.end()]);
    }
  },
};
