// The app page's client authentication card (API.md section 12.3) in Chromium: it shows the method in force,
// refuses in words what is not a public JWK or JWKS (a private key before anything is sent; a key type the
// service does not take with the service's words, naming the key), switches the app to private_key_jwt with
// a pasted JWKS and lists each key's kid and algorithm, and switches back to the client secret. The token
// endpoint follows each switch. Screenshots at 1280 and 375 px (test-results/screenshots); axe finds no
// serious or critical violation, with the dialog open and closed, at both widths; no console error.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { basic, createApp, tokenCall, type TestApp } from '../oauth/helpers.ts';
import { launchBrowser, PHONE, screenshot, seriousViolations, type Launched } from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let dev: TestMerchant;
let app: TestApp;
const ed = generateKeyPairSync('ed25519');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwks = {
  keys: [
    { ...ed.publicKey.export({ format: 'jwk' }), kid: 'ed-1' },
    { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1' },
  ],
};

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  dev = await signupMerchant(svc.app, 'Key Labs');
  app = await createApp(svc.app, dev, { name: 'Inventory Sync' });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** An app token asked with a client assertion signed by the Ed25519 key: 200 once the key is in force. */
async function withAssertion(): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const claims = { iss: app.client_id, sub: app.client_id, aud: svc.url, iat: now, exp: now + 60 };
  const input = `${b64({ alg: 'EdDSA', kid: 'ed-1' })}.${b64({ ...claims, jti: randomUUID() })}`;
  const assertion = `${input}.${sign(null, Buffer.from(input), ed.privateKey).toString('base64url')}`;
  const res = await tokenCall(svc.app, {
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
  });
  return res.statusCode;
}
const withSecret = async () =>
  (await tokenCall(svc.app, { grant_type: 'client_credentials' }, basic(app))).statusCode;

async function openApp(page: Page) {
  await signInWith(page, svc.url, dev);
  await page.goto(`${svc.url}/dashboard/settings/developers/apps/${app.id}`);
  await page.getByRole('heading', { name: 'Client authentication' }).waitFor();
  await settled(page);
}

const card = (page: Page) => page.getByRole('region', { name: 'Client authentication' });

it('switches the app to private_key_jwt with a pasted JWKS, refusing what is not one in words, and back', async () => {
  const s = await browser.open();
  const { page } = s;
  await openApp(page);
  expect(await card(page).getByTestId('client-auth-method').textContent()).toContain('Client secret');
  expect(await withSecret()).toBe(200);

  await card(page).getByRole('button', { name: 'Use private_key_jwt' }).click();
  const dialog = page.getByRole('dialog', { name: 'Use private_key_jwt' });
  const field = dialog.getByLabel('Public keys (JWK or JWKS)');
  const save = dialog.getByRole('button', { name: 'Use these keys' });

  await field.fill('not a key');
  await save.click();
  await dialog.getByText('This is not JSON.', { exact: false }).waitFor();
  expect(await field.getAttribute('aria-invalid')).toBe('true');

  // A private key is refused before it leaves the browser: the app is unchanged.
  await field.fill(JSON.stringify(ed.privateKey.export({ format: 'jwk' })));
  await save.click();
  await dialog.getByText('The key is a private or secret key (it has "d")', { exact: false }).waitFor();
  const unchanged = await svc.app.inject({
    url: `/api/v1/merchant/developer/apps/${app.id}`,
    headers: dev.auth,
  });
  expect(unchanged.json().data).toMatchObject({
    token_endpoint_auth_method: 'client_secret_basic',
    jwks: null,
  });

  // A key type the service does not take: its message, naming the key.
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
  await field.fill(JSON.stringify({ keys: [jwks.keys[0], p384] }));
  await save.click();
  const refused = dialog.getByRole('alert').filter({ hasText: 'jwks.keys[1]' });
  await refused.waitFor();
  expect(await refused.textContent()).toContain('must be an Ed25519 (OKP), P-256 (EC) or RSA key');
  await settled(page);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'app-client-auth-refused-1280');

  await field.fill(JSON.stringify(jwks, null, 2));
  await save.click();
  await dialog.waitFor({ state: 'detached' });
  expect(await card(page).getByTestId('client-auth-method').textContent()).toContain('private_key_jwt');
  const rows = card(page).getByRole('table', { name: 'Registered keys' }).getByRole('row');
  await expect.poll(() => rows.count()).toBe(3);
  expect(await rows.nth(1).textContent()).toMatch(/ed-1.*EdDSA.*Ed25519/);
  expect(await rows.nth(2).textContent()).toMatch(/rsa-1.*RS256.*RSA 2048 bits/);
  expect(await withSecret()).toBe(401);
  expect(await withAssertion()).toBe(200);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'app-client-auth-1280');

  await card(page).getByRole('button', { name: 'Use the client secret' }).click();
  const confirm = page.getByRole('dialog', { name: 'Use the client secret' });
  expect(await confirm.textContent()).toContain('The keys stay registered');
  await confirm.getByRole('button', { name: 'Use the client secret' }).click();
  await confirm.waitFor({ state: 'detached' });
  expect(await card(page).getByTestId('client-auth-method').textContent()).toContain('Client secret');
  await card(page).getByText('Registered keys, not in use while the secret is').waitFor();
  expect(await withSecret()).toBe(200);
  expect(await withAssertion()).toBe(401);
  // the one refusal the page asked for, the service's 400 for the P-384 key, and nothing else
  expect(s.errors).toEqual([expect.stringMatching(/status of 400 .*\/apps\/app_\w+\)$/)]);
});

it('reads on a phone: the card, its keys and the dialog at 375 px', async () => {
  await svc.app.inject({
    method: 'PATCH',
    url: `/api/v1/merchant/apps/${app.id}`,
    headers: dev.auth,
    payload: { token_endpoint_auth_method: 'private_key_jwt', jwks },
  });
  const s = await browser.open({ viewport: PHONE });
  const { page } = s;
  await openApp(page);
  await card(page).getByText('rsa-1').waitFor();
  await card(page).scrollIntoViewIfNeeded();
  expect(await seriousViolations(page, { colours: false })).toEqual([]);
  await screenshot(page, 'app-client-auth-375');
  await card(page).getByRole('button', { name: 'Replace keys' }).click();
  const dialog = page.getByRole('dialog', { name: 'Use private_key_jwt' });
  await dialog.getByLabel('Public keys (JWK or JWKS)').fill('{"keys":[]}');
  await dialog.getByRole('button', { name: 'Use these keys' }).click();
  await dialog.getByText('The JWKS has no key', { exact: false }).waitFor();
  expect(await seriousViolations(page, { colours: false })).toEqual([]);
  await screenshot(page, 'app-client-auth-dialog-375');
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});
