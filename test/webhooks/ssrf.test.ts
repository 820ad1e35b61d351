// The SSRF guard with the allow flag off: private, loopback, link-local and metadata targets are refused at
// creation (literal addresses and names resolving to them) and at connect time after DNS resolution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { isBlockedAddress } from '../../src/modules/webhooks/url-guard.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit, eventually } from './helpers.ts';

let lax: TestService; // allows private targets (creates the webhooks the strict one must refuse to reach)
let strict: TestService;
let m: TestMerchant;
let rx: Receiver;
beforeAll(async () => {
  lax = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  strict = await startTestService({
    shareWith: lax,
    workers: true,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_ALLOW_PRIVATE: '0' },
  });
  m = await signupMerchant(strict.app);
  rx = await startReceiver();
});
afterAll(async () => {
  await strict?.close();
  await lax?.close();
  await rx?.close();
});

describe('at creation', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://127.1.2.3:8080/hook',
    'http://10.0.0.1/hook',
    'http://172.16.5.4/hook',
    'http://192.168.1.1/hook',
    'http://100.64.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://[::1]/hook',
    'http://[::]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://[fe80::1]/hook',
    'http://localhost/hook',
    'http://localhost:4000/hook',
    'http://2130706433/hook', // 127.0.0.1 as one decimal number: the URL parser normalises it
    'http://0x7f.1/hook',
  ])('refuses %s', async (url) => {
    const res = await strict.app.inject({
      method: 'POST',
      url: base,
      headers: m.auth,
      payload: { url, events: ['order.paid'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details[0].field).toBe('url');
  });

  it('refuses a private target on update too', async () => {
    const wh = await createWebhook(strict, m, 'https://93.184.215.14/hook');
    const res = await strict.app.inject({
      method: 'PATCH',
      url: `${base}/${wh.id}`,
      headers: m.auth,
      payload: { url: 'http://10.0.0.1/' },
    });
    expect(res.statusCode).toBe(400);
  });

  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '::1',
      '::ffff:10.0.0.1',
      'fc00::1',
      '[::1]',
    ])
      expect(isBlockedAddress(a), a).toBe(true);
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', 'example.com'])
      expect(isBlockedAddress(a), a).toBe(false);
  });
});

describe('at connect time', () => {
  it.each(['127.0.0.1', 'localhost'])(
    'does not connect to %s even when the webhook exists, and records why',
    async (host) => {
      const merchant = await signupMerchant(lax.app);
      const port = new URL(rx.url).port;
      const wh = await createWebhook(lax, merchant, `http://${host}:${port}/sneaky`, ['order.paid']);
      await emit(lax, merchant, 'order.paid');
      const d = await eventually(async () => {
        const [item] = (await deliveries(lax, merchant, wh.id)).items;
        return item && item.attempt_count >= 1 ? item : undefined;
      });
      expect(d.last_error).toMatch(/blocked_address/);
      expect(d.last_response_status).toBeNull();
      expect(rx.received.filter((r) => r.path === '/sneaky')).toHaveLength(0);
    },
  );
});
