// The publishable key from a real browser on another origin (a second local port), as the browser example
// of docs/guides/api-keys.md does: the page fetches supported countries cross-origin (a preflight first,
// because of the Authorization header) and reads 249 countries. The same page with the secret key is
// refused with 403 credential_not_browser_safe, and the page can read the code and the message.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import { launchBrowser, type Launched } from './support/browser.ts';

// The page of the guide, byte for byte: the test serves the file the guide shows.
const PAGE = readFileSync(join(import.meta.dirname, '../../examples/browser-countries.html'), 'utf8');

let svc: TestService;
let browser: Launched;
let site: Server;
let siteUrl: string;
let key: TestKey;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  key = await createKey(svc.app, await signupMerchant(svc.app));
  site = createServer((req, res) => {
    if (req.url?.startsWith('/countries')) {
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    }
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
  await svc?.close();
});

const open = (credential: string) =>
  `${siteUrl}/countries?api=${encodeURIComponent(svc.url)}&key=${encodeURIComponent(credential)}`;

it('reads 249 countries with the publishable key from another origin', async () => {
  const s = await browser.open();
  expect(new URL(siteUrl).origin).not.toBe(new URL(svc.url).origin);
  await s.page.goto(open(key.publishable_key));
  await expect.poll(() => s.page.textContent('#status')).toBe('249 countries');
  expect(await s.page.locator('#countries li').count()).toBe(249);
  expect(await s.page.textContent('#request-id')).toMatch(/^req_/);
  expect(s.errors).toEqual([]);
});

it('is refused with the secret key: 403 credential_not_browser_safe, with a message the page can show', async () => {
  const s = await browser.open();
  await s.page.goto(open(key.secret_key));
  await expect.poll(() => s.page.textContent('#status')).toMatch(/^403 credential_not_browser_safe: /);
  expect(await s.page.textContent('#status')).toContain('server');
  expect(await s.page.locator('#countries li').count()).toBe(0);
});
