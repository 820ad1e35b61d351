// The addresses deliveries leave from (API.md section 12.2): SVC_EGRESS_ADDRESSES checked at start and naming
// the bad entry, and the same answer on the merchant interface and on the public one, where it takes no
// credential (a receiver's operator reads it to configure a firewall), with CORS as every public answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';

const UPDATED = '2026-12-01T09:30:00.000Z';
let svc: TestService;
let bare: TestService;
let m: TestMerchant;

beforeAll(async () => {
  svc = await startTestService({
    env: {
      SVC_EGRESS_ADDRESSES: '203.0.113.7, 198.51.100.0/24,2001:db8::/48',
      SVC_EGRESS_ADDRESSES_UPDATED_AT: UPDATED,
    },
  });
  bare = await startTestService();
  m = await signupMerchant(svc.app, 'Firewall keeper');
});
afterAll(async () => {
  await svc?.close();
  await bare?.close();
});

const ADDRESSES = ['203.0.113.7', '198.51.100.0/24', '2001:db8::/48'];

describe('SVC_EGRESS_ADDRESSES', () => {
  it('takes addresses and CIDRs of both families, and refuses anything else naming it', () => {
    const env = { SVC_MASTER_KEY: Buffer.alloc(32).toString('base64'), DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig({ ...env, SVC_EGRESS_ADDRESSES: ' 10.1.2.3 ,10.0.0.0/8' }).egressAddresses).toEqual([
      '10.1.2.3',
      '10.0.0.0/8',
    ]);
    expect(loadConfig(env).egressAddresses).toEqual([]);
    for (const bad of [
      'egress.example.com',
      '10.0.0.0/33',
      '10.0.0.1/8/1',
      '::1/129',
      '10.0.0.1,',
      '300.1.1.1',
    ]) {
      expect(() => loadConfig({ ...env, SVC_EGRESS_ADDRESSES: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, SVC_EGRESS_ADDRESSES: bad }), bad).toThrow(/SVC_EGRESS_ADDRESSES/);
    }
    expect(() => loadConfig({ ...env, SVC_EGRESS_ADDRESSES_UPDATED_AT: 'last tuesday' })).toThrow(
      /SVC_EGRESS_ADDRESSES_UPDATED_AT/,
    );
  });
});

describe('GET /webhook-source-addresses', () => {
  it('answers the merchant the configured list and time', async () => {
    const res = await svc.app.inject({ url: '/api/v1/merchant/webhook-source-addresses', headers: m.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { addresses: ADDRESSES, updated_at: UPDATED } });
    const anonymous = await svc.app.inject({ url: '/api/v1/merchant/webhook-source-addresses' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('answers anyone on the public interface, with no credential, and with CORS', async () => {
    const res = await svc.app.inject({
      url: '/api/public/v1/webhook-source-addresses',
      headers: { origin: 'https://receiver.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { addresses: ADDRESSES, updated_at: UPDATED } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // a credential, even a wrong one, changes nothing: the route reads none
    const withJunk = await svc.app.inject({
      url: '/api/public/v1/webhook-source-addresses',
      headers: { authorization: 'Bearer nonsense' },
    });
    expect(withJunk.statusCode).toBe(200);
    expect(
      (await svc.app.inject({ method: 'POST', url: '/api/public/v1/webhook-source-addresses' })).statusCode,
    ).toBe(405);
  });

  it('answers an empty list, as old as the process, when none is configured', async () => {
    const before = Date.now();
    const res = await bare.app.inject({ url: '/api/public/v1/webhook-source-addresses' });
    const data = res.json<{ data: { addresses: string[]; updated_at: string } }>().data;
    expect(data.addresses).toEqual([]);
    expect(Date.parse(data.updated_at)).toBeLessThanOrEqual(before);
  });

  it('is in the OpenAPI document, the public route open to anyone', async () => {
    const doc = (await svc.app.inject({ url: '/api/openapi.json' })).json<{
      paths: Record<string, Record<string, { security?: unknown[]; operationId: string }>>;
    }>();
    expect(doc.paths['/api/public/v1/webhook-source-addresses']!.get!.security).toEqual([]);
    expect(doc.paths['/api/v1/merchant/webhook-source-addresses']!.get!.operationId).toBe(
      'getWebhookSourceAddresses',
    );
  });
});
