// The audit module as the only writer of audit_logs and audit_counts: `writeAudit` for a use case's own
// transaction, and `prepareAudit` + `auditCtes` for a statement that learns the merchant as it runs (the
// refresh grant). Both apply the guard and move the counters that answer a page's `count`.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/lib/errors.ts';
import {
  auditCtes,
  prepareAudit,
  systemContext,
  writeAudit,
  type AuditActor,
} from '../../src/modules/audit/index.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { systemClock } from '../../src/lib/time.ts';

let svc: TestService;
let m: TestMerchant;
let other: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
  other = await signupMerchant(svc.app);
});
afterAll(async () => {
  await svc?.close();
});

const app: AuditActor = {
  actor: { type: 'app', id: 'app_x' },
  ip: '127.0.0.1',
  userAgent: 'vitest',
  requestId: 'req_writer',
  clock: systemClock,
};

/** Every counter of a merchant's test mode, summed over its shards. */
async function counts(merchantId: string): Promise<Record<string, number>> {
  const rows = await svc.ctx.db
    .selectFrom('audit_counts')
    .select(['key', (eb) => eb.fn.sum<number>('n').as('n')])
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', 'test')
    .groupBy('key')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
}

const moved = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, n]) => [k, n - (before[k] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  );

describe('the guard', () => {
  it('refuses an entry holding a secret-shaped value, before any statement', () => {
    let err: unknown;
    try {
      prepareAudit(app, {
        action: 'oauth.token_refreshed',
        entityType: 'oauth_grant',
        fields: { scope: 'svc_test_sk_AAAAAAAAAA' },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
  });

  it('redacts a secret-shaped run in the client User-Agent rather than refusing', () => {
    const entry = prepareAudit(
      { ...app, userAgent: 'curl svc_test_sk_AAAAAAAAAA' },
      { action: 'oauth.token_refreshed', entityType: 'oauth_grant', fields: { grant_type: 'refresh_token' } },
    );
    const metadata = JSON.parse(entry.metadata);
    expect(metadata).toMatchObject({
      actor: { type: 'app', id: 'app_x' },
      ip: '127.0.0.1',
      request_id: 'req_writer',
      grant_type: 'refresh_token',
    });
    expect(metadata.user_agent).toBe('curl [redacted]');
    expect(entry.id).toMatch(/^log_/);
  });
});

describe('the counters', () => {
  it('writeAudit moves the four counters of its entry by one', async () => {
    const before = await counts(m.merchantId);
    await svc.ctx.db.transaction().execute((trx) =>
      writeAudit(trx, systemContext(svc.ctx, m.merchantId, 'test'), {
        action: 'webhook.created',
        entityType: 'webhook',
        entityId: 'wh_1',
      }),
    );
    expect(moved(before, await counts(m.merchantId))).toEqual({
      '*': 1,
      'family:webhook': 1,
      'action:webhook.created': 1,
      'entity_type:webhook': 1,
    });
  });

  it("a caller's statement writes N entries through auditCtes, for several merchants, and counts each", async () => {
    const mine = await counts(m.merchantId);
    const theirs = await counts(other.merchantId);
    const entries = [m.merchantId, m.merchantId, other.merchantId].map((merchantId, i) => ({
      merchantId,
      grantId: `grant_${i}`,
      prepared: prepareAudit(app, {
        action: 'oauth.token_refreshed',
        entityType: 'oauth_grant',
        fields: { n: i },
      }),
    }));
    // As the refresh statement does: the merchant and the entity come from a relation of the statement.
    await sql`
      with entries as (
        select e.log_id, e.log_at, e.merchant_id, 'test'::text as mode, 'oauth.token_refreshed'::text as action,
               'oauth_grant'::text as entity_type, e.entity_id, e.metadata
          from unnest(${entries.map((e) => e.prepared.id)}::text[],
                      ${entries.map((e) => e.prepared.createdAt.toISOString())}::timestamptz[],
                      ${entries.map((e) => e.merchantId)}::text[], ${entries.map((e) => e.grantId)}::text[],
                      ${entries.map((e) => e.prepared.metadata)}::text[])
            as e(log_id, log_at, merchant_id, entity_id, metadata)
      ), ${sql.raw(auditCtes('entries'))}
      select 1`.execute(svc.ctx.db);

    const refreshed = {
      '*': 2,
      'family:oauth': 2,
      'action:oauth.token_refreshed': 2,
      'entity_type:oauth_grant': 2,
    };
    expect(moved(mine, await counts(m.merchantId))).toEqual(refreshed);
    expect(moved(theirs, await counts(other.merchantId))).toEqual(
      Object.fromEntries(Object.keys(refreshed).map((k) => [k, 1])),
    );
    const rows = await svc.ctx.db
      .selectFrom('audit_logs')
      .select(['id', 'merchant_id', 'family', 'entity_id', 'metadata', 'created_at'])
      .where(
        'id',
        'in',
        entries.map((e) => e.prepared.id),
      )
      .orderBy('entity_id')
      .execute();
    expect(rows.map((r) => [r.merchant_id, r.entity_id, r.family])).toEqual([
      [m.merchantId, 'grant_0', 'oauth'],
      [m.merchantId, 'grant_1', 'oauth'],
      [other.merchantId, 'grant_2', 'oauth'],
    ]);
    expect(rows[0]!.created_at.getTime()).toBe(entries[0]!.prepared.createdAt.getTime());

    // and the page's count, answered by the counters, agrees with the entries
    const page = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=oauth.token_refreshed',
      headers: m.auth,
    });
    expect(page.json().data.count).toBe(2);
  });

  it('refuses a source that is not a plain relation name', () => {
    expect(() => auditCtes('entries; drop table audit_logs')).toThrow();
  });
});
