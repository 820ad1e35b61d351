// The log as a file an auditor can use (API.md section 10): CSV per RFC 4180 and JSON Lines, with the logs
// page's filters, the same rows as the API, and the export itself on record; rows inserted by hand, outside
// the chain, flagged after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { insertEntries } from '../../src/modules/audit/audit.repository.ts';
import { newId } from '../../src/lib/ids.ts';
import { chainState, insertByHand, sealAll } from './chain-support.ts';

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
  // Entries with commas, quotes and a line break in their metadata (names are free text).
  for (const name of ['plain', 'with, comma', 'with "quotes"', 'two\nlines']) {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/api-keys',
      headers: m.auth,
      payload: { name },
    });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(() => svc?.close());

interface Entry {
  id: string;
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: string;
  sequence: number | null;
  hash: string | null;
  prev_hash: string | null;
}

async function apiEntries(query = ''): Promise<Entry[]> {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/developer/logs?limit=200${query}`,
    headers: m.auth,
  });
  return res.json<{ data: { items: Entry[] } }>().data.items;
}

describe('logs export', () => {
  it('streams CSV that a CSV library parses into the rows of the API', async () => {
    const res = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs/export?format=csv&action=api_key.*',
      headers: m.auth,
    });
    // after the export, which seals what was written before it: the list shows the same seals
    const expected = await apiEntries('&action=api_key.*');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="svc-logs-test-.*\.csv"$/);
    expect(res.body.endsWith('\r\n')).toBe(true);
    const rows = parse<Entry>(res.body, { columns: true });
    expect(rows).toEqual(
      expected.map((e) => ({
        id: e.id,
        created_at: e.created_at,
        action: e.action,
        entity_type: e.entity_type,
        entity_id: e.entity_id,
        metadata: e.metadata,
        sequence: String(e.sequence),
        hash: e.hash,
        prev_hash: e.prev_hash,
        outside_chain: 'false',
      })),
    );
    expect(rows).toHaveLength(4);
  });

  it('streams JSON Lines, one entry per line, and records the export', async () => {
    const res = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs/export?format=jsonl',
      headers: m.auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry);
    const expected = await apiEntries();
    // the export's own entry is written before it streams, so it is the newest line
    expect(lines[0]!.action).toBe('audit_log.exported');
    expect(lines.map((l) => l.id)).toEqual(expected.filter((e) => e.id <= lines[0]!.id).map((e) => e.id));
    const exported = (await apiEntries('&action=audit_log.exported')).map((e) => ({
      ...e,
      metadata: JSON.parse(e.metadata) as Record<string, unknown>,
    }));
    expect(exported[0]).toMatchObject({ entity_type: 'audit_log', entity_id: m.merchantId });
    expect(exported[0]!.metadata).toMatchObject({ format: 'jsonl', actor: { type: 'user', id: m.userId } });
  });

  it('streams a log longer than one read (1,000 entries) whole: each entry once, newest first', async () => {
    const start = Date.now() - 3_600_000;
    const seeded = Array.from({ length: 2_345 }, (_, i) => {
      const createdAt = new Date(start + i);
      return {
        id: newId('log', createdAt.getTime()),
        createdAt,
        merchantId: m.merchantId,
        mode: 'test',
        action: 'webhook.tested',
        entityType: 'webhook',
        entityId: `wh_${i}`,
        metadata: JSON.stringify({ n: i }),
      };
    });
    await insertEntries(svc.ctx.db, seeded);
    const res = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs/export?format=csv&action=webhook.tested',
      headers: m.auth,
    });
    expect(res.statusCode).toBe(200);
    const rows = parse<Entry>(res.body, { columns: true });
    expect(rows.map((r) => r.id)).toEqual(seeded.map((e) => e.id).reverse());
    expect(rows.at(-1)).toMatchObject({ entity_id: 'wh_0', metadata: '{"n":0}' });
  });

  it('holds the rows inserted by hand after the chain, flagged outside it, as CSV and JSON Lines', async () => {
    const n = await signupMerchant(svc.app);
    const key = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/api-keys',
      headers: n.auth,
      payload: { name: 'sealed' },
    });
    expect(key.statusCode).toBe(201);
    await sealAll(svc);
    // plain SQL through the test's own handle: no seal, no place in the queue, whatever their time
    const older = await insertByHand(svc, n, { at: new Date(Date.now() - 86_400_000) });
    const newer = await insertByHand(svc, n, { action: 'webhook.deleted' });
    const get = async (query: string) => {
      const res = await svc.app.inject({
        url: `/api/v1/merchant/developer/logs/export?${query}`,
        headers: n.auth,
      });
      expect(res.statusCode).toBe(200);
      return res.body;
    };

    const lines = (await get('format=jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry & { outside_chain?: boolean });
    // the chain, newest first (the export's own entry, the key's), then the rows outside it, newest first
    expect(lines.map((l) => [l.action, l.sequence])).toEqual([
      ['audit_log.exported', 2],
      ['api_key.created', 1],
      ['webhook.deleted', null],
      ['api_key.revoked', null],
    ]);
    for (const l of lines.slice(0, 2)) expect(l).not.toHaveProperty('outside_chain');
    expect(lines[2]).toMatchObject({ ...newer, outside_chain: true, hash: null, prev_hash: null });
    expect(lines[3]).toMatchObject({ ...older, outside_chain: true, hash: null, prev_hash: null });

    const rows = parse<Record<string, string>>(await get('format=csv'), { columns: true });
    // this export's own entry first
    expect(rows.map((r) => [r.action, r.sequence, r.outside_chain])[0]).toEqual([
      'audit_log.exported',
      '3',
      'false',
    ]);
    expect(rows.slice(1).map((r) => [r.id, r.sequence, r.outside_chain])).toEqual([
      [lines[0]!.id, '2', 'false'],
      [lines[1]!.id, '1', 'false'],
      [newer.id, '', 'true'],
      [older.id, '', 'true'],
    ]);

    // a filter narrows them as it narrows the chain
    const filtered = (await get('format=jsonl&action=api_key.*'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry & { outside_chain?: boolean; export_filtered?: boolean });
    expect(filtered.map((l) => [l.id, l.outside_chain, l.export_filtered])).toEqual([
      [lines[1]!.id, undefined, true],
      [older.id, true, true],
    ]);
    // and the chain check says what the export holds
    expect(await chainState(svc, n)).toMatchObject({
      state: 'outside_chain',
      outside_chain: 2,
      first_outside_chain: older,
    });
  });

  it('refuses a bad format and needs a session', async () => {
    const bad = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs/export?format=xml',
      headers: m.auth,
    });
    expect(bad.statusCode).toBe(400);
    const anon = await svc.app.inject({ url: '/api/v1/merchant/developer/logs/export' });
    expect(anon.statusCode).toBe(401);
  });
});
