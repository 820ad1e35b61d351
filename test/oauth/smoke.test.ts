import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { createApp, exchange, getCode, readWith, refresh } from './helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_LOG_LEVEL: 'error' } });
});
afterAll(async () => svc?.close());

it('smoke', async () => {
  const dev = await signupMerchant(svc.app, 'Dev Co');
  const shop = await signupMerchant(svc.app, 'Shop');
  const client = await createApp(svc.app, dev);
  const { code, verifier } = await getCode(svc.app, client, shop);
  const tokens = await exchange(svc.app, client, code, verifier);
  expect(await readWith(svc.app, tokens.access_token)).toBe(200);
  const r = await refresh(svc.app, client, tokens.refresh_token);
  expect(r.statusCode, r.body).toBe(200);
});
