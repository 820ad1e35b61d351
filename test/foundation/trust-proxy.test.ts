// SVC_TRUST_PROXY: X-Forwarded-For decides the client address only through the proxies it names. The address
// is read back where the service records it: the audit entry of a write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Creates a key pair from `remoteAddress` with the given X-Forwarded-For; the address its audit entry holds. */
async function recordedAddress(
  svc: TestService,
  m: TestMerchant,
  remoteAddress: string,
  forwardedFor?: string,
): Promise<string> {
  const created = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/api-keys',
    remoteAddress,
    headers: { ...m.auth, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    payload: {},
  });
  expect(created.statusCode).toBe(201);
  const logs = await svc.app.inject({
    url: `/api/v1/merchant/developer/logs?entity_id=${created.json().data.id}`,
    headers: m.auth,
  });
  const entry = logs.json().data.items[0];
  return JSON.parse(entry.metadata).ip as string;
}

describe('without SVC_TRUST_PROXY', () => {
  let svc: TestService;
  let m: TestMerchant;
  beforeAll(async () => {
    svc = await startTestService();
    m = await signupMerchant(svc.app);
  });
  afterAll(async () => svc?.close());

  it('takes the socket address and ignores X-Forwarded-For', async () => {
    expect(await recordedAddress(svc, m, '10.0.0.5', '203.0.113.9')).toBe('10.0.0.5');
    expect(await recordedAddress(svc, m, '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
  });
});

describe('with SVC_TRUST_PROXY=10.0.0.0/8,::1', () => {
  let svc: TestService;
  let m: TestMerchant;
  beforeAll(async () => {
    svc = await startTestService({ env: { SVC_TRUST_PROXY: '10.0.0.0/8, ::1' } });
    m = await signupMerchant(svc.app);
  });
  afterAll(async () => svc?.close());

  it('takes the client address from X-Forwarded-For sent by a trusted proxy', async () => {
    expect(await recordedAddress(svc, m, '10.0.0.5', '203.0.113.9')).toBe('203.0.113.9');
    expect(await recordedAddress(svc, m, '::1', '2001:db8::7')).toBe('2001:db8::7');
  });

  it('walks the chain through trusted hops only, so a forged leftmost entry is ignored', async () => {
    // The client forged "198.51.100.1"; the proxy appended the address it saw, 203.0.113.9.
    expect(await recordedAddress(svc, m, '10.0.0.5', '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
    // Two trusted hops (10.1.1.1 forwarded to 10.0.0.5): the first untrusted address is the client.
    expect(await recordedAddress(svc, m, '10.0.0.5', '203.0.113.9, 10.1.1.1')).toBe('203.0.113.9');
  });

  it('ignores X-Forwarded-For from an address that is not a trusted proxy', async () => {
    expect(await recordedAddress(svc, m, '192.0.2.7', '203.0.113.9')).toBe('192.0.2.7');
    expect(await recordedAddress(svc, m, '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
  });
});

describe('the setting', () => {
  const load = (value: string) => loadConfig({ SVC_TRUST_PROXY: value }, { masterKey: Buffer.alloc(32) });

  it('is off by default and by "off"', () => {
    expect(loadConfig({}, { masterKey: Buffer.alloc(32) }).trustProxy).toBe(false);
    expect(load('off').trustProxy).toBe(false);
  });

  it('takes addresses, CIDRs and the named ranges', () => {
    expect(load('10.0.0.1, 172.16.0.0/12,fd00::/8,loopback').trustProxy).toEqual([
      '10.0.0.1',
      '172.16.0.0/12',
      'fd00::/8',
      'loopback',
    ]);
  });

  it.each(['true', '1', 'proxy.example.com', '10.0.0.0/33', '::1/129', '10.0.0.1/8/2', '10.0.0.1,'])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() => load(value)).toThrow(ConfigError);
      expect(() => load(value)).toThrow(/SVC_TRUST_PROXY/);
    },
  );
});
