// Every check of a signed-in user's password (revealing a webhook secret) draws on the sign-in failure
// budgets, so a stolen session cannot guess the password without limit: past the budget it answers 429
// `rate_limited` with Retry-After, every failure leaves a `member.auth_failed` entry naming the check (never
// the value tried), and the budget is the one /auth/login draws on. The service's clock stands still, so a
// wait the budget starts never runs out between two requests, however slow the machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { createWebhook, type CreatedWebhook } from '../webhooks/helpers.ts';

let now = Date.now();
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_RATE_LIMIT: 'on' }, clock: { now: () => now } });
});
afterAll(async () => svc?.close());

const WRONG = 'not my password at all';
// Five failures are free on an account, the sixth starts a wait (sign-in.service.ts).
const FREE = 5;

const reveal = (m: TestMerchant, webhook: CreatedWebhook, password: string, remoteAddress: string) =>
  svc.app.inject({
    method: 'POST',
    url: `/api/v1/merchant/webhooks/${webhook.id}/reveal-secret`,
    headers: m.auth,
    remoteAddress,
    payload: { password },
  });

const login = (m: TestMerchant, password: string, remoteAddress: string) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login',
    remoteAddress,
    payload: { email: m.email, password },
  });

interface Entry {
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
}

async function authFailures(m: TestMerchant): Promise<Entry[]> {
  const res = await svc.app.inject({
    url: '/api/v1/merchant/developer/logs?action=member.auth_failed&limit=200',
    headers: m.auth,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: { items: Entry[] } }>().data.items;
}

describe('wrong passwords at reveal-secret', () => {
  let m: TestMerchant;
  let webhook: CreatedWebhook;
  const THIEF = '198.51.100.7';
  const statuses: number[] = [];
  beforeAll(async () => {
    m = await signupMerchant(svc.app);
    webhook = await createWebhook(svc, m, 'https://example.com/hook');
    for (let i = 0; i < FREE + 2; i++) statuses.push((await reveal(m, webhook, WRONG, THIEF)).statusCode);
  });

  it('answer 403 within the budget, then 429 rate_limited with Retry-After', async () => {
    expect(statuses).toEqual([...Array<number>(FREE + 1).fill(403), 429]);
    const res = await reveal(m, webhook, WRONG, THIEF);
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('rate_limited');
    expect(res.headers['retry-after']).toBe('1');
    // The right password waits too: a guess that would succeed is not even tried.
    expect((await reveal(m, webhook, m.password, THIEF)).statusCode).toBe(429);
  });

  it('audit each failure as member.auth_failed with the check, never the value tried', async () => {
    const entries = await authFailures(m);
    expect(entries).toHaveLength(FREE + 1);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        action: 'member.auth_failed',
        entity_type: 'member',
        entity_id: m.userId,
      });
      const metadata = JSON.parse(entry.metadata) as Record<string, unknown>;
      expect(metadata).toMatchObject({ check: 'reveal', actor: { type: 'user', id: m.userId }, ip: THIEF });
      expect(entry.metadata).not.toContain(WRONG);
    }
  });

  it("draw on login's budget: the account waits for a sign-in from a new address", async () => {
    expect((await login(m, m.password, '203.0.113.50')).statusCode).toBe(429);
  });

  it('reveal with the right password once the wait is over, and start the budget afresh', async () => {
    now += 1000;
    const res = await reveal(m, webhook, m.password, THIEF);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.secret).toBe(webhook.secret);
    expect((await reveal(m, webhook, WRONG, THIEF)).statusCode).toBe(403);
    expect(await authFailures(m)).toHaveLength(FREE + 2);
  });
});

describe("login's failures", () => {
  it('count against reveal-secret: the same budget', async () => {
    const m = await signupMerchant(svc.app);
    const webhook = await createWebhook(svc, m, 'https://example.com/hook');
    const GUESSER = '198.51.100.8';
    for (let i = 0; i < FREE + 1; i++) expect((await login(m, WRONG, GUESSER)).statusCode).toBe(401);
    const res = await reveal(m, webhook, m.password, GUESSER);
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('rate_limited');
    // Refused before the check: nothing was tried, nothing failed.
    expect(await authFailures(m)).toEqual([]);
  });
});
