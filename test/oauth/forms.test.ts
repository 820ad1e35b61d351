// Form bodies at the OAuth endpoints (RFC 6749 3.1 and 3.2, parsed by @fastify/formbody): a parameter given
// twice is refused, a form over 64 KiB is refused before any handler runs, each in RFC form, and a field named
// like an Object property is a field like any other.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { basic, createApp, type TestApp } from './helpers.ts';

let svc: TestService;
let client: TestApp;
beforeAll(async () => {
  svc = await startTestService();
  client = await createApp(svc.app, await signupMerchant(svc.app));
});
afterAll(async () => svc?.close());

const post = (path: 'token' | 'revoke', form: string, headers: Record<string, string> = basic(client)) =>
  svc.app.inject({
    method: 'POST',
    url: `/api/public/v1/oauth/${path}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form,
  });

function expectRfcError(res: Awaited<ReturnType<typeof post>>, status: number, error: string) {
  expect([res.statusCode, res.json()]).toEqual([
    status,
    { error, error_description: expect.any(String) as string },
  ]);
  expect(res.headers['cache-control']).toBe('no-store');
}

it('refuses a repeated parameter with invalid_request, wherever it is', async () => {
  expectRfcError(await post('token', 'grant_type=authorization_code&code=a&code=b'), 400, 'invalid_request');
  const secret = encodeURIComponent(client.client_secret);
  expectRfcError(
    await post(
      'token',
      `grant_type=refresh_token&refresh_token=x&client_id=${client.client_id}&client_id=${client.client_id}&client_secret=${secret}`,
      {},
    ),
    400,
    'invalid_request',
  );
  expectRfcError(await post('revoke', 'token=a&token=b'), 400, 'invalid_request');
});

it('reads a form up to 64 KiB and refuses a larger one in RFC form', async () => {
  const head = 'grant_type=refresh_token&refresh_token=svc_ort_x&padding=';
  const fits = await post('token', head + 'x'.repeat(64 * 1024 - head.length));
  expectRfcError(fits, 400, 'invalid_grant'); // parsed: the unknown parameter is ignored, the token is not one
  expectRfcError(await post('token', head + 'x'.repeat(64 * 1024 - head.length + 1)), 400, 'invalid_request');
});

it('takes __proto__ and constructor as plain, ignored parameters', async () => {
  const res = await post(
    'token',
    'grant_type=refresh_token&refresh_token=svc_ort_x&__proto__=a&constructor=b',
  );
  expectRfcError(res, 400, 'invalid_grant');
});

// Found by the fuzz test: a consent body sent without a Content-Type was parsed as JSON but skipped the
// validation (its schema is given per media type), and `{"consent_id":[]}` reached the database (500).
it('refuses a consent body sent without a Content-Type (415), never handing it over unvalidated', async () => {
  const merchant = await signupMerchant(svc.app);
  for (const payload of ['{"consent_id":[]}', '{"consent_id":"x","approve":true}']) {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      headers: merchant.auth,
      payload,
    });
    expect([res.statusCode, res.json().error.code]).toEqual([415, 'unsupported_media_type']);
  }
});
