// Shared steps of the webhook tests: create a webhook through the API, emit events through the internal route.
import type { TestService } from '../support/service.ts';
import type { TestMerchant } from '../support/merchants.ts';
import { mergeData, sampleData } from '../../src/modules/events/index.ts';

export const INTERNAL_TOKEN = 'internal-token-for-tests';
export const base = '/api/v1/merchant/webhooks';

export interface CreatedWebhook {
  id: string;
  secret: string;
  url: string;
  status: string;
}

export async function createWebhook(
  svc: TestService,
  m: TestMerchant,
  url: string,
  events: string[] = ['order.created'],
  mode = 'test',
): Promise<CreatedWebhook> {
  const res = await svc.app.inject({
    method: 'POST',
    url: base,
    headers: { ...m.auth, 'x-svc-mode': mode },
    payload: { url, events },
  });
  if (res.statusCode !== 201) throw new Error(`create webhook: ${res.statusCode} ${res.body}`);
  return res.json<{ data: CreatedWebhook }>().data;
}

export async function emit(
  svc: TestService,
  m: TestMerchant,
  type = 'order.created',
  data: Record<string, unknown> = { id: 'ord_1' },
  mode = 'test',
): Promise<{ id: string; deliveries: number }> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/internal/v1/events',
    headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
    // The fields a test cares about, over the example of the type: the data must match its schema.
    payload: { merchant_id: m.merchantId, mode, type, data: mergeData(sampleData(type), data) },
  });
  if (res.statusCode !== 202) throw new Error(`emit: ${res.statusCode} ${res.body}`);
  return res.json<{ data: { id: string; deliveries: number } }>().data;
}

export interface DeliveryView {
  id: string;
  status: string;
  attempt_count: number;
  event_id: string;
  test: boolean;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  attempts: {
    number: number;
    started_at: string;
    response_status: number | null;
    response_body: string | null;
    error: string | null;
  }[];
}

export async function deliveries(svc: TestService, m: TestMerchant, webhookId: string, query = '') {
  const res = await svc.app.inject({ url: `${base}/${webhookId}/deliveries${query}`, headers: m.auth });
  return res.json<{ data: { items: DeliveryView[]; count: number } }>().data;
}

export async function delivery(svc: TestService, m: TestMerchant, webhookId: string, id: string) {
  const res = await svc.app.inject({ url: `${base}/${webhookId}/deliveries/${id}`, headers: m.auth });
  return res.json<{ data: DeliveryView }>().data;
}
