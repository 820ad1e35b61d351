// /docs as a reference worth reading: Scalar renders the served document in Chromium with the service's own
// name, links to the guides, and finds an operation by its summary, with no console error (nothing is
// fetched from elsewhere).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { launchBrowser, type Launched } from './support/browser.ts';

let svc: TestService;
let browser: Launched;
beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

it('renders the reference, its guides and an operation found by its summary', async () => {
  const s = await browser.open();
  const requests: string[] = [];
  s.page.on('request', (r) => requests.push(r.url()));
  // Scalar's script is 4 MB: on a loaded host its parse alone passed the 10 s of a page load, so the test
  // waits for the rendered heading, not for the load event.
  await s.page.goto(`${svc.url}/docs/`, { waitUntil: 'commit' });
  await s.page.getByRole('heading', { name: 'svc API', level: 1 }).waitFor({ timeout: 30_000 });
  const guide = s.page.getByRole('link', { name: 'Building an OAuth app' }).first();
  expect(await guide.getAttribute('href')).toMatch(/oauth-apps\.md$/);
  // The search finds an operation by its summary, and opens it.
  await s.page
    .getByRole('button', { name: /Search/ })
    .first()
    .click();
  await s.page.keyboard.type('failed delivery since');
  await s.page
    .getByRole('option', { name: /Send again every failed delivery since a time/ })
    .first()
    .click();
  await s.page
    .getByRole('heading', { name: 'Send again every failed delivery since a time' })
    .first()
    .waitFor();
  expect(requests.filter((u) => !u.startsWith(svc.url) && !u.startsWith('data:'))).toEqual([]);
  expect(s.errors).toEqual([]);
  await s.close();
});
