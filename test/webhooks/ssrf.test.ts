// The SSRF guard with the allow flag off: private, loopback, link-local and metadata targets are refused at
// creation (literal addresses and names resolving to them) and at connect time after DNS resolution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { isIP } from 'node:net';
import { isBlockedAddress, REFUSED_RANGES } from '../../src/modules/webhooks/url-guard.ts';
import { createAgent, sendOnce } from '../../src/modules/webhooks/sender.ts';
import { systemClock } from '../../src/lib/time.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit } from './helpers.ts';

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

// Every row of the one table, at its first host and its last address, plus the NAT64 prefix, which is
// refused only when the IPv4 address it carries is.
function toBig(address: string): bigint {
  if (isIP(address) === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}
function fromBig(n: bigint, v4: boolean): string {
  if (v4) return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}
function samples(range: string): string[] {
  const [net, bits] = range.split('/') as [string, string];
  const v4 = isIP(net) === 4;
  const size = (v4 ? 32n : 128n) - BigInt(bits);
  const first = toBig(net);
  const last = first + (1n << size) - 1n;
  return [...new Set([first + (size > 0n ? 1n : 0n), last])].map((n) => fromBig(n, v4));
}
const url = (address: string) =>
  isIP(address) === 6 ? `http://[${address}]:47100/` : `http://${address}:47100/`;

const refused = REFUSED_RANGES.flatMap(({ range, name, embedsIpv4 }) =>
  embedsIpv4
    ? ['10.0.0.1', '127.0.0.1', '169.254.169.254', '192.168.1.1'].map((v4) => ({
        range,
        name,
        address: `64:ff9b::${v4}`,
      }))
    : samples(range).map((address) => ({ range, name, address })),
);
const allowed = [
  '93.184.215.14',
  '8.8.8.8',
  '1.1.1.1',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001::1',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '64:ff9b::93.184.215.14',
];

describe('every refused range of the table', () => {
  it('covers the registries named in the issue', () => {
    const ranges = REFUSED_RANGES.map((r) => r.range);
    for (const r of ['2002::/16', '2001::/32', '::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b:1::/48'])
      expect(ranges).toContain(r);
    expect(refused.length).toBeGreaterThan(REFUSED_RANGES.length);
  });

  it.each(refused)('$address ($range, $name) is a blocked address', ({ address }) => {
    expect(isBlockedAddress(address)).toBe(true);
    expect(isBlockedAddress(`[${address}]`)).toBe(true);
  });

  it.each(allowed)('%s is not', (address) => expect(isBlockedAddress(address)).toBe(false));

  it('refuses each at creation', async () => {
    const answers = await Promise.all(
      refused.map(({ address }) =>
        strict.app.inject({
          method: 'POST',
          url: base,
          headers: m.auth,
          payload: { url: url(address), events: ['order.paid'] },
        }),
      ),
    );
    const accepted = refused.filter((_, i) => answers[i]!.statusCode !== 400);
    expect(accepted).toEqual([]);
    for (const res of answers) expect(res.json().error.details[0].field).toBe('url');
  });

  it('refuses each at connect time, before any packet is sent', async () => {
    const agent = createAgent({ timeoutMs: 2000, allowPrivate: false });
    try {
      const results = await Promise.all(
        refused.map(({ address }) => sendOnce(agent, url(address), {}, '{}', 2000, systemClock)),
      );
      const sent = refused.filter((_, i) => !results[i]!.error?.startsWith('blocked_address'));
      expect(sent).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
