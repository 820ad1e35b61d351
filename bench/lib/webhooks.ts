// Webhooks and events of the delivery measures, through the merchant API and the internal ingestion route.
import type { Api, Merchant } from './api.ts';
import type { Bench } from './bench.ts';
import type { Child } from './child.ts';
import { nowMs, sleep, summarise } from './stats.ts';

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

export async function createWebhook(
  api: Api,
  m: Merchant,
  url: string,
  event: string,
  rules: { ordering?: 'none' | 'per_object'; rate_limit?: number | null; filter?: unknown } = {},
) {
  const { data } = await api.expect(201, 'POST', '/api/v1/merchant/webhooks', {
    token: m.token,
    body: { url, events: [event], ...rules },
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

export interface EventsCall {
  url: string;
  token: string;
  merchantId: string;
  /** Spread the events over these merchants (event n to the n-th, round robin) rather than `merchantId`. */
  merchantIds?: string[];
  type: string;
  /** Event ids are `evt_<prefix><n>`, so the receiver's records can be joined to the send times. */
  prefix: string;
  /** The events are about this many objects (`data.id`), in turn; absent: one object each. */
  keys?: number;
}

export interface SteadyRun {
  sentAt: number[];
  errors: number;
  /** Events not accepted (no 202). */
  failed: number[];
  achievedRate: number;
  /** Each ingestion's answer time, from its send (a late send is timed from when it was due), ms. */
  answerP50: number;
  answerP99: number;
}

/**
 * A steady `rate` of events for `seconds` s (an open loop), each timed from the start of its ingestion request
 * to its first successful receipt at the receiver `rx`. An event not received within 30 s of the last send
 * counts with the latency it had reached then: a lower bound, so a pipeline that falls behind shows as
 * short rather than as missing.
 */
export async function steadyLatencies(b: Bench, rx: Child, call: EventsCall, rate: number, seconds: number) {
  const sent = await b.load.call<SteadyRun>('steady', { ...call, rate, duration: seconds });
  const ids = `evt_${call.prefix}`;
  const total = sent.sentAt.length;
  const receipts = () => rx.call<Record<string, number>>('receipts', ids);
  await waitFor(async () => Object.keys(await receipts()).length, total, 30_000, 250);
  const got = await receipts();
  const checkedAt = nowMs();
  const latencies = sent.sentAt.map((t, n) => (got[`${ids}${n}`] ?? checkedAt) - t);
  return { sent, summary: summarise(latencies), lost: total - Object.keys(got).length };
}

export function eventsCall(b: Bench, m: Merchant, type: string, prefix: string): EventsCall {
  return {
    url: `${b.service.url}/internal/v1/events`,
    token: b.service.internalToken,
    merchantId: m.merchantId,
    type,
    prefix,
  };
}
