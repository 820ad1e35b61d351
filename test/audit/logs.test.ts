// GET /api/v1/merchant/developer/logs as API.md section 8 says: limits, cursors, filters, count, modes,
// tenant isolation, and metadata as a JSON string.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { systemContext, writeAudit, type AuditContext } from '../../src/modules/audit/index.ts';
import { sealAll } from './chain-support.ts';

let svc: TestService;
let m: TestMerchant;
let other: TestMerchant;
const ACTIONS = [
  'webhook.created',
  'api_key.created',
  'developer_app.updated',
  'webhook.deleted',
  'oauth.token_issued',
];

beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
  other = await signupMerchant(svc.app);
  const ctx = (merchantId: string, mode: 'test' | 'live'): AuditContext => ({
    merchantId,
    mode,
    actor: { type: 'user', id: 'usr_x' },
    ip: '127.0.0.1',
    userAgent: 'vitest',
    requestId: 'req_test',
    clock: svc.ctx.clock,
  });
  // 123 entries in test mode, 7 in live mode, 5 for another merchant.
  await svc.ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < 123; i++) {
      await writeAudit(trx, ctx(m.merchantId, 'test'), {
        action: ACTIONS[i % ACTIONS.length]!,
        entityType: 'webhook',
        entityId: `wh_${i % 3}`,
        fields: { n: i },
      });
    }
    for (let i = 0; i < 7; i++) {
      await writeAudit(trx, ctx(m.merchantId, 'live'), {
        action: 'api_key.revoked',
        entityType: 'api_key',
        entityId: 'key_live',
      });
    }
    for (let i = 0; i < 5; i++) {
      await writeAudit(trx, ctx(other.merchantId, 'test'), {
        action: 'webhook.created',
        entityType: 'webhook',
        entityId: 'wh_other',
      });
    }
  });
});
afterAll(async () => svc?.close());

const logs = (query: string, headers: Record<string, string> = m.auth) =>
  svc.app.inject({ url: `/api/v1/merchant/developer/logs${query}`, headers });

describe('developer logs', () => {
  it('pages 50 by default, newest first, with the total count', async () => {
    const res = await logs('');
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data.items).toHaveLength(50);
    expect(data.count).toBe(123);
    expect(data.has_more).toBe(true);
    expect(data.next_cursor).toBe(data.items[49].id);
    const ids = data.items.map((i: { id: string }) => i.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(JSON.parse(data.items[0].metadata)).toEqual({
      actor: { type: 'user', id: 'usr_x' },
      ip: '127.0.0.1',
      user_agent: 'vitest',
      request_id: 'req_test',
      n: 122,
    });
  });

  it('refuses limit outside 1-200 with 400 validation_failed', async () => {
    for (const bad of ['201', '0', '-1', 'abc']) {
      const res = await logs(`?limit=${bad}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
      expect(res.json().error.details[0].field).toBe('limit');
    }
    expect((await logs('?limit=200')).json().data.items).toHaveLength(123);
  });

  it('walks every entry with the cursor, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await logs(`?limit=17${cursor ? `&starting_after=${cursor}` : ''}`);
      const { data } = res.json();
      seen.push(...data.items.map((i: { id: string }) => i.id));
      cursor = data.next_cursor;
      expect(data.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toHaveLength(123);
    expect(new Set(seen).size).toBe(123);
    expect([...seen].sort().reverse()).toEqual(seen);
    // past the oldest entry: no item, and still the count over all pages
    const past = (await logs(`?starting_after=${seen.at(-1)}`)).json().data;
    expect(past).toEqual({ items: [], count: 123, has_more: false, next_cursor: null });
  });

  it('filters by family, exact action, entity type and entity id', async () => {
    const family = (await logs('?action=webhook.*&limit=200')).json().data;
    expect(family.count).toBe(49);
    expect(family.items.every((i: { action: string }) => i.action.startsWith('webhook.'))).toBe(true);
    const exact = (await logs('?action=webhook.deleted&limit=200')).json().data;
    expect(exact.count).toBe(24);
    expect((await logs('?entity_id=wh_1')).json().data.count).toBe(41);
    expect((await logs('?entity_type=webhook')).json().data.count).toBe(123);
    expect((await logs('?entity_type=api_key')).json().data.count).toBe(0);
    expect((await logs('?action=nope')).statusCode).toBe(400);
  });

  it('filters by time: since inclusive, until exclusive', async () => {
    const all = (await logs('?limit=200')).json().data.items as { id: string; created_at: string }[];
    const pivot = all[60]!.created_at;
    const since = (await logs(`?limit=200&since=${pivot}`)).json().data;
    const until = (await logs(`?limit=200&until=${pivot}`)).json().data;
    expect(since.count + until.count).toBe(123);
    expect(since.items.every((i: { created_at: string }) => i.created_at >= pivot)).toBe(true);
    expect(until.items.every((i: { created_at: string }) => i.created_at < pivot)).toBe(true);
    expect((await logs('?since=yesterday')).statusCode).toBe(400);
  });

  it('keeps modes apart', async () => {
    const live = (await logs('', { ...m.auth, 'x-svc-mode': 'live' })).json().data;
    expect(live.count).toBe(7);
    expect(live.items.every((i: { action: string }) => i.action === 'api_key.revoked')).toBe(true);
  });

  it('never shows another merchant its entries', async () => {
    const theirs = (await logs('?limit=200', other.auth)).json().data;
    expect(theirs.count).toBe(5);
    expect(theirs.items.every((i: { entity_id: string }) => i.entity_id === 'wh_other')).toBe(true);
    const mine = (await logs('?entity_id=wh_other')).json().data;
    expect(mine.count).toBe(0);
  });

  it('serves each entry as the database holds it: escapes, unicode, times, seals and unsealed nulls', async () => {
    const odd = await signupMerchant(svc.app);
    const write = (name: string) =>
      svc.ctx.db.transaction().execute((trx) =>
        writeAudit(
          trx,
          {
            ...systemContext(svc.ctx, odd.merchantId, 'test'),
            userAgent: 'agent "quoted" \\ back\u0001slash',
          },
          { action: 'webhook.updated', entityType: 'webhook', entityId: 'wh_"odd"', fields: { name } },
        ),
      );
    await write('tab\tline\nbreak \u2028 é 漢字 🙂 </script>');
    await sealAll(svc);
    await write('not sealed yet');
    const res = await logs('', odd.auth);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const served = res.json().data;
    const held = await svc.ctx.db
      .selectFrom('audit_logs')
      .leftJoin('audit_chain', 'audit_chain.log_id', 'audit_logs.id')
      .select(['id', 'action', 'entity_type', 'entity_id', 'metadata', 'created_at'])
      .select(['sequence', 'hash', 'prev_hash'])
      .where('audit_logs.merchant_id', '=', odd.merchantId)
      .orderBy('id', 'desc')
      .execute();
    expect(served).toEqual({
      items: held.map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
      count: 2,
      has_more: false,
      next_cursor: null,
    });
    expect(Object.keys(served.items[1])).toEqual([
      'id',
      'action',
      'entity_type',
      'entity_id',
      'metadata',
      'created_at',
      'sequence',
      'hash',
      'prev_hash',
    ]);
    expect(served.items[1].sequence).toBe(1);
    expect(served.items[0]).toMatchObject({ sequence: null, hash: null, prev_hash: null });
    expect(JSON.parse(served.items[1].metadata).name).toBe('tab\tline\nbreak \u2028 é 漢字 🙂 </script>');
  });

  it('is read-only', async () => {
    const res = await svc.app.inject({
      method: 'DELETE',
      url: '/api/v1/merchant/developer/logs',
      headers: m.auth,
    });
    expect(res.statusCode).toBe(405);
  });

  it('refuses to write a secret into metadata', async () => {
    await expect(
      svc.ctx.db.transaction().execute((trx) =>
        writeAudit(trx, systemContext(svc.ctx, m.merchantId, 'test'), {
          action: 'api_key.created',
          entityType: 'api_key',
          entityId: 'key_x',
          fields: { leaked: m.token },
        }),
      ),
    ).rejects.toThrow(/secret/);
  });
});
