// A merchant's engineer whose endpoint cannot take every delivery at once (API.md section 11.4): the edit
// dialog sets a rate limit and per-object ordering, and the endpoint's page says it is "paced at N/s because
// the endpoint answered 429" while the engine paces it down. The page passes axe and logs no console error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTimingReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN } from '../webhooks/helpers.ts';
import { eventually } from '../support/eventually.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import { launchBrowser, seriousViolations, type Launched, type Session } from './support/browser.ts';
import { signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let rx: Receiver;
let merchant: TestMerchant;
let s: Session;

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object): Promise<any> {
  const res = await svc.app.inject({
    method,
    url: `/api/v1/merchant${url}`,
    headers: merchant.auth,
    payload,
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

beforeAll(async () => {
  [svc, browser, rx] = await Promise.all([
    startTestService({
      listen: true,
      workers: true,
      env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '1,1,2' },
    }),
    launchBrowser(),
    // It takes 5 requests in any one second and answers 429 to the rest, on a thread of its own: on this
    // thread, which runs the embedded database's statements, it answered late, and the engine saw timeouts.
    startTimingReceiver({ perSecond: 5 }),
  ]);
  merchant = await signupMerchant(svc.app, 'Flash Sale');
  s = await browser.open();
  await signInWith(s.page, svc.url, merchant);
});
afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await svc?.close();
});

describe("an endpoint's pace", () => {
  let webhook: { id: string };

  it('sets a rate limit and per-object ordering in the edit dialog', async () => {
    webhook = await call('POST', '/webhooks', { url: `${rx.url}/capped`, events: ['order.created'] });
    const { page } = s;
    await page.goto(`${svc.url}/dashboard/settings/developers/webhooks/${webhook.id}`);
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await expect.poll(() => page.getByTestId('pace').textContent()).toBe('unconstrained');
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
    await edit.getByLabel('Rate limit').fill('40');
    await edit.getByLabel('Per object').check();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('pace').textContent()).toBe('at most 40/s (its rate limit)');
    expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({
      rate_limit: 40,
      ordering: 'per_object',
    });
  });

  it('says the endpoint is paced down and why, once it answered 429', async () => {
    // Without its rate limit: a rate limit's slots are a promise to the endpoint, started within 25 ms or given
    // back (docs/decisions/0136-adaptive-pace-slots-may-start-late.md), and on a loaded host the embedded
    // database's service missed nearly every one, so no 429 came within the test's 15 s. The pace learnt from
    // the 429s is what this page says; it needs no rate limit.
    await call('PATCH', `/webhooks/${webhook.id}`, { rate_limit: null });
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        svc.app.inject({
          method: 'POST',
          url: '/internal/v1/events',
          headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
          payload: {
            merchant_id: merchant.merchantId,
            mode: 'test',
            type: 'order.created',
            data: { ...sampleData('order.created'), id: `order_${i}` },
          },
        }),
      ),
    );
    await eventually(
      async () => (await call('GET', `/webhooks/${webhook.id}`)).health.pace_reason === '429',
      {
        timeoutMs: 15_000,
        what: 'the endpoint paced down for its 429s',
      },
    );
    const { page } = s;
    await page.reload();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await expect
      .poll(() => page.getByTestId('pace').textContent())
      .toMatch(/^paced at \d+(\.\d)?\/s because the endpoint answered 429$/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });
});
