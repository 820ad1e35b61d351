// Audit sealer: how far sealing trails the writes at RATE entries per second on one merchant. The bench writes
// the entries itself, in the statement shape of the service's writers (the audit module's `auditCtes`: the
// entry, its place in the sealer's queue, its counters), TICK_MS at a time on its own connection, while the
// service's sealer loop chains them. Every SAMPLE_MS it reads the age of the oldest entry still unsealed: the
// trail. Then how long the queue takes to drain once writing stops, and the service's own CPU per entry
// (the sealer's: the service process serves nothing else meanwhile).
import pg from 'pg';
import { newId } from '../../src/lib/ids.ts';
import { auditCtes } from '../../src/modules/audit/index.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { missing, row, type Measure } from '../lib/bench.ts';
import { percentile } from '../lib/stats.ts';

const RATE = 2_000;
const TICK_MS = 50;
const SAMPLE_MS = 100;
const TARGET = { of: 'value', op: '<=', limit: 5_000 } as const;

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

export const auditSealer: Measure = {
  name: 'audit-sealer',
  async run(b) {
    const name = `audit sealer trail at ${RATE}/s p99`;
    const m = await b.api.signup('Bench sealer');
    const writer = new pg.Client({ connectionString: b.cluster.url('svc') });
    const probe = new pg.Client({ connectionString: b.cluster.url('svc') });
    await Promise.all([writer.connect(), probe.connect()]);
    try {
      const queue = await probe.query<{ t: string | null }>(`select to_regclass('audit_pending')::text as t`);
      if (!queue.rows[0]?.t) return [missing(name, 'ms', 'feature missing (no audit chain)', TARGET)];
      const perTick = (RATE * TICK_MS) / 1000;
      const cpu0 = processCpuMs(b.service.pid);
      const t0 = performance.now();
      const end = t0 + b.duration * 1000;
      const samples: number[] = [];
      let written = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const { rows } = await probe.query<{ ms: number }>(OLDEST_UNSEALED_MS, [m.merchantId]);
          samples.push(rows[0]!.ms);
          await new Promise((r) => setTimeout(r, SAMPLE_MS));
        }
      })();
      // Ticks at fixed times from the start: a late tick writes its share at once, so the rate holds.
      for (let tick = 0; t0 + tick * TICK_MS < end; tick++) {
        const wait = t0 + tick * TICK_MS - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await writeTick(writer, m.merchantId, perTick);
        written += perTick;
      }
      const wrote = (performance.now() - t0) / 1000;
      const stopped = performance.now();
      for (;;) {
        const { rows } = await probe.query<{ ms: number }>(OLDEST_UNSEALED_MS, [m.merchantId]);
        if (rows[0]!.ms === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const drain = performance.now() - stopped;
      sampling = false;
      await sampler;
      const nodeUs = ((processCpuMs(b.service.pid) - cpu0) / written) * 1000;
      samples.sort((x, y) => x - y);
      const p99 = percentile(samples, 99);
      const max = samples.at(-1)!;
      b.log(
        `audit sealer: ${written} entries in ${wrote.toFixed(1)} s (${(written / wrote).toFixed(0)}/s); ` +
          `trail p50 ${percentile(samples, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms; ` +
          `drained ${drain.toFixed(0)} ms after the last write; service Node CPU ${nodeUs.toFixed(1)} us/entry`,
      );
      return [
        row(
          name,
          'ms',
          p99,
          null,
          TARGET,
          `oldest unsealed entry's age, sampled every ${SAMPLE_MS} ms: p50 ${percentile(samples, 50).toFixed(0)} ms, ` +
            `max ${max.toFixed(0)} ms; ${written} entries at ${(written / wrote).toFixed(0)}/s on one merchant; ` +
            `drained ${drain.toFixed(0)} ms after the last write; the service's Node CPU ${nodeUs.toFixed(1)} us per entry`,
        ),
      ];
    } finally {
      await Promise.all([writer.end(), probe.end()]);
    }
  },
};
