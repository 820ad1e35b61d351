// The dashboard's side of operating many integrations (API.md section 12.2): the Replay dialog's live count,
// its progress bar following the replay batch by batch to the end, and Cancel on a running one; the payload
// filter editor creating a filtered endpoint, with the API's fault shown beside the condition it names; and
// the Store column of an app webhook's deliveries, naming each store as its installation does. Each view at
// 1280 and 375 px (screenshots under test-results/screenshots), with no serious or critical axe violation and
// no console error. The service runs no loops: the test advances the replays itself, a batch at a time, with
// the function the replay loop calls (test/webhooks/replays.test.ts runs them in the background).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { advanceReplays } from '../../src/modules/replays/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { INTERNAL_TOKEN, base, createWebhook, emit } from '../webhooks/helpers.ts';
import { createAppWebhook, install, newApp } from '../webhooks/app-helpers.ts';
import {
  PHONE,
  launchBrowser,
  screenshot,
  seriousViolations,
  type Launched,
  type Session,
} from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let ops: TestMerchant;
let dev: TestMerchant;
let shop: TestMerchant;
let s: Session;
let hookId: string;
let appHookId: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([
    startTestService({ listen: true, env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } }),
    launchBrowser(),
  ]);
  ops = await signupMerchant(svc.app, 'Replay Ops');
  dev = await signupMerchant(svc.app, 'Many Stores Dev');
  shop = await signupMerchant(svc.app, 'Corner Shop');
  hookId = (
    await createWebhook(svc, ops, 'https://hooks.example.com/replay', ['order.created', 'order.paid'])
  ).id;
  for (let i = 0; i < 5; i++) await emit(svc, ops, 'order.created', { id: `ord_r${i}` });
  for (let i = 0; i < 2; i++) await emit(svc, ops, 'order.paid', { id: `ord_p${i}` });
  const app = await newApp(svc, dev);
  appHookId = (await createAppWebhook(svc, dev, app, 'https://hooks.example.com/app', ['order.created'])).id;
  await install(svc, app, shop, 'public:read');
  await emit(svc, shop, 'order.created', { id: 'ord_corner' });
  s = await browser.open();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const dashboard = (path: string) => `${svc.url}/dashboard/settings/developers${path}`;

/** Console errors but those a step caused on purpose (the browser logs every 4xx answer). */
const unexpected = (errors: string[], allowed: RegExp[] = []) =>
  errors.filter((e) => !allowed.some((a) => a.test(e)));
const REFUSED_FILTER = /status of 400 .*\/api\/v1\/merchant\/webhooks\)?$/;

/** The view as it is now, at 1280 px here and at 375 px in a phone's session: screenshots, and axe at both. */
async function bothWidths(
  page: Page,
  name: string,
  open: (phone: Page) => Promise<void>,
  allowed: RegExp[] = [],
) {
  await screenshot(page, `${name}-1280`);
  expect(await seriousViolations(page), `axe on ${name} at 1280 px`).toEqual([]);
  const phone = await browser.open({ viewport: PHONE });
  try {
    await open(phone.page);
    await settled(phone.page);
    await screenshot(phone.page, `${name}-375`);
    expect(await seriousViolations(phone.page, { colours: false }), `axe on ${name} at 375 px`).toEqual([]);
    expect(unexpected(phone.errors, allowed)).toEqual([]);
  } finally {
    await phone.close();
  }
}

async function signedIn(page: Page, who: TestMerchant) {
  await signInWith(page, svc.url, { email: who.email, password: who.password });
}

describe('the Replay dialog', () => {
  beforeAll(() => signedIn(s.page, ops));

  it('counts as the form changes, then follows the replay batch by batch to the end', async () => {
    const { page } = s;
    await page.goto(dashboard(`/webhooks/${hookId}`));
    await settled(page);
    await page.getByRole('button', { name: 'Replay events' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay events' });
    const preview = dialog.getByTestId('replay-preview');
    // nothing was tried yet, so nothing failed; every event of the window is seven
    await expect.poll(() => preview.textContent()).toBe('No event matches.');
    await dialog.getByRole('radio', { name: /Every event/ }).check();
    await expect.poll(() => preview.textContent()).toBe('7 events match.');
    await dialog.getByRole('checkbox', { name: 'order.created' }).check();
    await expect.poll(() => preview.textContent()).toBe('5 events match.');
    await bothWidths(page, 'webhook-replay-dialog', async (phone) => {
      await signedIn(phone, ops);
      await phone.goto(dashboard(`/webhooks/${hookId}`));
      await settled(phone);
      await phone.getByRole('button', { name: 'Replay events' }).click();
      await phone.getByTestId('replay-preview').getByText(/match/).waitFor();
    });

    await dialog.getByRole('button', { name: 'Replay 5 events' }).click();
    const running = page.getByRole('dialog', { name: 'Replaying' });
    const bar = running.getByRole('progressbar', { name: 'Replay progress' });
    const words = running.getByTestId('replay-progress-text');
    await expect.poll(() => words.textContent()).toBe('0 of 5 walked: 0 queued, 0 skipped');
    expect(await bar.getAttribute('max')).toBe('5');

    expect(await advanceReplays(svc.ctx, 2)).toMatchObject({ status: 'running', queued: 2 });
    await expect.poll(() => words.textContent()).toBe('2 of 5 walked: 2 queued, 0 skipped');
    expect(await bar.getAttribute('value')).toBe('2');
    await screenshot(page, 'webhook-replay-progress-1280');

    // the batch's own count: the three left
    expect(await advanceReplays(svc.ctx)).toMatchObject({ status: 'done', queued: 3 });
    const finished = page.getByRole('dialog', { name: 'Replay finished' });
    await expect
      .poll(() => finished.getByTestId('replay-progress-text').textContent())
      .toBe('Done: 5 queued, 0 skipped');
    expect(await finished.getByRole('button', { name: 'Cancel replay' }).count()).toBe(0);
    await finished.getByRole('button', { name: 'Done' }).click();
    const replays = page.getByRole('region', { name: 'Replays' });
    await replays.locator('[data-status="done"]').waitFor();
    expect(s.errors).toEqual([]);
  });

  it('cancels a running replay, and lists both on the page', async () => {
    const { page } = s;
    await page.getByRole('button', { name: 'Replay events' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay events' });
    await dialog.getByRole('radio', { name: /Every event/ }).check();
    await expect.poll(() => dialog.getByTestId('replay-preview').textContent()).toBe('7 events match.');
    await dialog.getByRole('button', { name: 'Replay 7 events' }).click();
    const running = page.getByRole('dialog', { name: 'Replaying' });
    await running.getByText('0 of 7 walked: 0 queued, 0 skipped').waitFor();
    await running.getByRole('button', { name: 'Cancel replay' }).click();
    const finished = page.getByRole('dialog', { name: 'Replay finished' });
    await expect
      .poll(() => finished.getByTestId('replay-progress-text').textContent())
      .toBe('Cancelled: 0 queued, 0 skipped of 7');
    expect(await advanceReplays(svc.ctx)).toBeUndefined(); // nothing is left running
    await finished.getByRole('button', { name: 'Done' }).click();

    const replays = page.getByRole('region', { name: 'Replays' });
    await replays.locator('[data-status="cancelled"]').waitFor();
    expect(await replays.locator('tbody tr').count()).toBe(2);
    await settled(page);
    await bothWidths(page, 'webhook-replays', async (phone) => {
      await signedIn(phone, ops);
      await phone.goto(dashboard(`/webhooks/${hookId}`));
      await phone.getByRole('region', { name: 'Replays' }).locator('[data-status="cancelled"]').waitFor();
    });
    const listed = await svc.app.inject({ url: `${base}/${hookId}/replays`, headers: ops.auth });
    expect(listed.json<{ data: { items: { status: string }[] } }>().data.items.map((r) => r.status)).toEqual([
      'cancelled',
      'done',
    ]);
    expect(s.errors).toEqual([]);
  });
});

describe('the payload filter editor', () => {
  const fill = async (page: Page, n: number, path: string, op: string, value: string) => {
    await page.getByRole('button', { name: 'Add condition' }).click();
    const row = page.getByRole('group', { name: `Condition ${n}` });
    await row.getByLabel('Path').fill(path);
    await row.getByLabel('Operator').selectOption(op);
    await row.getByLabel('Value').fill(value);
    return row;
  };

  it("creates a filtered endpoint, showing the API's fault beside the condition it names", async () => {
    const { page } = s;
    await page.goto(dashboard('/webhooks/new'));
    await settled(page);
    await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/filtered');
    await page.getByRole('checkbox', { name: /order\.created/ }).check();
    const first = await fill(page, 1, 'data.total', 'gte', '100');
    await fill(page, 2, 'data.currency', 'in', 'EUR, USD');
    const third = await fill(page, 3, 'data.note', 'prefix', '');
    const json = page.getByTestId('filter-json');
    expect(JSON.parse((await json.textContent())!)).toEqual({
      all: [
        { path: 'data.total', op: 'gte', value: 100 },
        { path: 'data.currency', op: 'in', value: ['EUR', 'USD'] },
        { path: 'data.note', op: 'prefix', value: '' },
      ],
    });

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const fault = third.getByRole('alert');
    await expect.poll(() => fault.textContent()).toBe('value must be a non-empty string for prefix');
    expect(await third.getByLabel('Value').getAttribute('aria-invalid')).toBe('true');
    expect(await first.getByRole('alert').count()).toBe(0);
    await bothWidths(
      page,
      'webhook-filter-fault',
      async (phone) => {
        await signedIn(phone, ops);
        await phone.goto(dashboard('/webhooks/new'));
        await settled(phone);
        await phone.getByLabel('Endpoint URL').fill('https://hooks.example.com/filtered');
        await phone.getByRole('checkbox', { name: /order\.created/ }).check();
        await fill(phone, 1, 'data.note', 'prefix', '');
        await phone.getByRole('button', { name: 'Add endpoint' }).click();
        await phone.getByRole('group', { name: 'Condition 1' }).getByRole('alert').waitFor();
      },
      [REFUSED_FILTER],
    );

    // the fault goes with its condition's change; the remaining two make a valid filter, of any
    await third.getByLabel('Value').fill('gift');
    expect(await third.getByRole('alert').count()).toBe(0);
    await page.getByRole('button', { name: 'Remove condition 3' }).click();
    await page.getByLabel('Match').selectOption('any');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page
      .getByRole('dialog', { name: 'Endpoint added' })
      .getByRole('button', { name: 'I have saved it' })
      .click();
    const shown = page.getByTestId('webhook-filter');
    await shown.waitFor();
    const filter = {
      any: [
        { path: 'data.total', op: 'gte', value: 100 },
        { path: 'data.currency', op: 'in', value: ['EUR', 'USD'] },
      ],
    };
    expect(JSON.parse((await shown.textContent())!)).toEqual(filter);
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    const saved = await svc.app.inject({ url: `${base}/${id}`, headers: ops.auth });
    expect(saved.json<{ data: { filter: unknown } }>().data.filter).toEqual(filter);

    // the edit dialog starts from the saved filter and shows it the same way
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
    expect(JSON.parse((await edit.getByTestId('filter-json').textContent())!)).toEqual(filter);
    expect(await edit.getByRole('group', { name: 'Condition 2' }).getByLabel('Value').inputValue()).toBe(
      'EUR, USD',
    );
    await edit.getByRole('button', { name: 'Cancel' }).click();
    expect(unexpected(s.errors, [REFUSED_FILTER])).toEqual([]);
  });
});

describe("an app webhook's deliveries", () => {
  it('name the store of each delivery as its installation does', async () => {
    const session = await browser.open();
    const { page } = session;
    try {
      await signedIn(page, dev);
      const installs = await svc.app.inject({
        url: `/api/v1/merchant/developer/apps/${(await appOf()).id}/installations`,
        headers: dev.auth,
      });
      const store = installs.json<{ data: { items: { store: { id: string; name: string } }[] } }>().data
        .items[0]!.store;
      expect(store.id).toBe(shop.storeId);
      await page.goto(dashboard(`/webhooks/${appHookId}`));
      await page.getByRole('columnheader', { name: 'Store' }).waitFor();
      await settled(page);
      const cell = page.getByRole('cell', { name: shop.storeId });
      await expect.poll(() => cell.textContent()).toBe(`${store.name}${shop.storeId}`);
      await bothWidths(page, 'webhook-store-column', async (phone) => {
        await signedIn(phone, dev);
        await phone.goto(dashboard(`/webhooks/${appHookId}`));
        await phone.getByRole('table').getByText(store.name, { exact: true }).waitFor();
      });
      expect(session.errors).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

async function appOf(): Promise<{ id: string }> {
  const res = await svc.app.inject({ url: `${base}/${appHookId}`, headers: dev.auth });
  return { id: res.json<{ data: { app_id: string } }>().data.app_id };
}
