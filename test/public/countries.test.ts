import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { bearer, createKey, type TestKey } from '../api-keys/keys.ts';

let svc: TestService;
let key: TestKey;
beforeAll(async () => {
  svc = await startTestService();
  key = await createKey(svc.app, await signupMerchant(svc.app), { mode: 'live' });
});
afterAll(async () => svc?.close());

describe('GET /payments/supported-countries', () => {
  it('lists every ISO 3166-1 alpha-2 country in one page, with a publishable key', async () => {
    const res = await svc.app.inject({
      url: '/api/public/v1/payments/supported-countries',
      headers: bearer(key.publishable_key, 'live'),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const { items, count, has_more, next_cursor } = res.json().data;
    expect(has_more).toBe(false);
    expect(next_cursor).toBeNull();
    expect(count).toBe(items.length);
    expect(items.length).toBe(249);
    expect(items).toContainEqual({ code: 'US', name: 'United States' });
    expect(items).toContainEqual({ code: 'FR', name: 'France' });
    expect(items).toContainEqual({ code: 'DE', name: 'Germany' });
    for (const c of items) {
      expect(Object.keys(c).sort()).toEqual(['code', 'name']);
      expect(c.code).toMatch(/^[A-Z]{2}$/);
      expect(c.name.length).toBeGreaterThan(1);
    }
    expect(new Set(items.map((c: { code: string }) => c.code)).size).toBe(items.length);
  });

  it('answers the same to a secret key', async () => {
    const res = await svc.app.inject({
      url: '/api/public/v1/payments/supported-countries',
      headers: bearer(key.secret_key),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.count).toBe(249);
  });
});
