import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { decide } from '../../src/modules/delivery/retry-schedule.ts';
import { newWebhookSecret, signedHeaders, signingKey } from '../../src/modules/webhooks/signing.ts';

const schedule = [5, 300, 1800, 7200, 18000, 36000, 36000];
const now = new Date('2026-11-21T10:00:00.000Z');
const after = (d: { nextAttemptAt: Date | null }) => (d.nextAttemptAt!.getTime() - now.getTime()) / 1000;

describe('retry schedule', () => {
  it('succeeds on any 2xx only', () => {
    for (const status of [200, 201, 204, 299])
      expect(decide(schedule, 0, { status, retryAfter: null }, now).status).toBe('succeeded');
    for (const status of [301, 302, 304, 400, 404, 500, null])
      expect(decide(schedule, 0, { status, retryAfter: null }, now).status).toBe('pending');
  });

  it('follows the steps with +-20% jitter, then fails', () => {
    schedule.forEach((seconds, step) => {
      const low = decide(schedule, step, { status: 500, retryAfter: null }, now, () => 0);
      const high = decide(schedule, step, { status: 500, retryAfter: null }, now, () => 1);
      expect(after(low)).toBeCloseTo(seconds * 0.8, 2);
      expect(after(high)).toBeCloseTo(seconds * 1.2, 2);
      expect(low.step).toBe(step + 1);
    });
    expect(decide(schedule, 7, { status: 500, retryAfter: null }, now)).toMatchObject({
      status: 'failed',
      nextAttemptAt: null,
    });
  });

  it('waits at least Retry-After on 429 and 503, capped at the next-but-one step', () => {
    expect(after(decide(schedule, 0, { status: 429, retryAfter: 60 }, now, () => 0.5))).toBe(60);
    expect(after(decide(schedule, 0, { status: 503, retryAfter: 100_000 }, now, () => 0.5))).toBe(300);
    expect(after(decide(schedule, 1, { status: 429, retryAfter: 1 }, now, () => 0.5))).toBe(300);
  });

  it('ends at once on 410', () => {
    expect(decide(schedule, 0, { status: 410, retryAfter: null }, now)).toMatchObject({
      status: 'failed',
      gone: true,
    });
  });
});

describe('signing', () => {
  it('is accepted by the standardwebhooks library, with one or two secrets', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'order.paid', data: { emoji: '✓' } });
    const headers = signedHeaders([signingKey(b), signingKey(a)], 'evt_1', body, new Date());
    for (const secret of [a, b])
      expect(new Webhook(secret).verify(body, { ...headers })).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
  });
});

// The by-hand verification of docs/webhooks.md, verbatim.
function verify(secret: string, headers: Record<string, string>, rawBody: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  const now = Math.floor(Date.now() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > 300) return false; // replay window
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected); // constant time
  });
}

describe('verification by hand (docs/webhooks.md)', () => {
  it('accepts our signatures, refuses a wrong secret, a changed body and an old timestamp', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    const body = '{"id":"evt_1","type":"order.paid"}';
    const headers = { ...signedHeaders([signingKey(a), signingKey(b)], 'evt_1', body, new Date()) };
    expect(verify(a, headers, body)).toBe(true);
    expect(verify(b, headers, body)).toBe(true);
    expect(verify(newWebhookSecret(), headers, body)).toBe(false);
    expect(verify(a, headers, body.replace('paid', 'cancelled'))).toBe(false);
    const old = { ...signedHeaders([signingKey(a)], 'evt_1', body, new Date(Date.now() - 301_000)) };
    expect(verify(a, old, body)).toBe(false);
  });
});
