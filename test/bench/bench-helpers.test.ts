// The benchmark's own arithmetic and its audit seed, on both databases: the audit entries it seeds must be
// ids the service would have made (time-sortable, the right shape) and must be counted like the service's
// own writes, or the pages it times are not the pages the service serves. Benchmarks themselves are never
// timed assertions here.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { COUNTERS, seedEntries } from '../../bench/lib/audit-seed.ts';
import { percentile, summarise } from '../../bench/lib/stats.ts';
import { isId } from '../../src/lib/ids.ts';
import { signupMerchant } from '../support/merchants.ts';
import { startTestService } from '../support/service.ts';

describe('bench arithmetic', () => {
  it('takes nearest-rank percentiles', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(summarise([3, 1, 2])).toMatchObject({ count: 3, p50: 2, max: 3 });
  });
});

describe('bench audit seed', () => {
  it('writes valid time-ordered log ids that the logs page lists and counts', async () => {
    const svc = await startTestService();
    try {
      const m = await signupMerchant(svc.app);
      // The measure copies the entries in through pg; here they are inserted one by one, for either driver.
      for (const e of seedEntries(m.merchantId, 300)) {
        await sql`insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
                  values (${e.id}, ${e.merchant_id}, ${e.mode}, ${e.action}, ${e.entity_type}, ${e.entity_id},
                          ${e.metadata}, ${e.created_at})`.execute(svc.ctx.db);
      }
      await sql.raw(COUNTERS.replaceAll('$1', `'${m.merchantId}'`)).execute(svc.ctx.db);

      const res = await svc.app.inject({ url: '/api/v1/merchant/developer/logs?limit=50', headers: m.auth });
      expect(res.statusCode).toBe(200);
      const page = res.json<{ data: { items: { id: string; created_at: string }[]; count: number } }>().data;
      expect(page.count).toBeGreaterThanOrEqual(300);
      expect(page.items).toHaveLength(50);
      for (const item of page.items) expect(isId('log', item.id)).toBe(true);
      const ids = page.items.map((i) => i.id);
      expect([...ids].sort().reverse()).toEqual(ids);
      // Newest first by id is newest first by time: the id's time part is the entry's created_at.
      const times = page.items.map((i) => Date.parse(i.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);

      const family = await svc.app.inject({
        url: '/api/v1/merchant/developer/logs?limit=5&action=webhook.*',
        headers: m.auth,
      });
      const filtered = family.json<{ data: { items: { action: string }[]; count: number } }>().data;
      expect(filtered.items.every((i) => i.action.startsWith('webhook.'))).toBe(true);
      expect(filtered.count).toBe(113); // 3 of every 8 seeded actions, entries 1..300
    } finally {
      await svc.close();
    }
  });
});
