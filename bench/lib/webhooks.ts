// Webhooks and events of the delivery measures, through the merchant API and the internal ingestion route.
import type { Api, Merchant } from './api.ts';
import type { Bench } from './bench.ts';
import type { Child } from './child.ts';
import { sleep } from './stats.ts';

export async function webhooksMissing(b: Bench): Promise<string | undefined> {
  const list = await b.api.call('GET', '/api/v1/merchant/webhooks', { token: b.merchant.token });
  if (list.status === 404) return 'feature missing (webhooks)';
  const ingest = await b.api.call('POST', '/internal/v1/events', { body: {} });
  if (ingest.status === 404) return 'feature missing (event ingestion route)';
  return undefined;
}

export async function receiver(b: Bench): Promise<{ child: Child; url: string }> {
  const child = await b.helper('drivers/receiver.ts');
  return { child, url: `http://127.0.0.1:${String(child.info.port)}` };
}

export async function createWebhook(api: Api, m: Merchant, url: string, event: string) {
  const { data } = await api.expect(201, 'POST', '/api/v1/merchant/webhooks', {
    token: m.token,
    body: { url, events: [event] },
  });
  return { id: data.id as string, secret: data.secret as string };
}

/** Deliveries of a webhook recorded as succeeded, as the merchant API counts them. */
export async function succeeded(api: Api, m: Merchant, webhookId: string): Promise<number> {
  const { data } = await api.expect(
    200,
    'GET',
    `/api/v1/merchant/webhooks/${webhookId}/deliveries?status=succeeded&limit=1`,
    {
      token: m.token,
    },
  );
  return data.count as number;
}

/** Polls `probe` until it reaches `target` or `timeoutMs` passes; the time it got there, or undefined. */
export async function waitFor(probe: () => Promise<number>, target: number, timeoutMs: number, everyMs = 50) {
  const deadline = performance.now() + timeoutMs;
  let last = 0;
  while (performance.now() < deadline) {
    last = await probe();
    if (last >= target) return { at: performance.timeOrigin + performance.now(), last };
    await sleep(everyMs);
  }
  return { at: undefined, last };
}

export function eventsCall(b: Bench, m: Merchant, type: string, prefix: string) {
  return {
    url: `${b.service.url}/internal/v1/events`,
    token: b.service.internalToken,
    merchantId: m.merchantId,
    type,
    prefix,
  };
}
