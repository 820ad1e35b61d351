// The event sequence (API.md section 11.4), on both databases: 1, 2, 3, ... per merchant and mode in commit
// order with no gaps, under ingestion from two services and concurrent transactions at once; in the event
// object, the delivery body and the list; GET /events?after_sequence=N lists what follows N, oldest first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { emitEvent } from '../../src/modules/outbox/index.ts';
import { mergeData, sampleData } from '../../src/modules/events/index.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { createWebhook, emit, INTERNAL_TOKEN } from './helpers.ts';

const env = { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN };
let a: TestService;
let b: TestService;
let rx: Receiver;
beforeAll(async () => {
  a = await startTestService({ workers: true, env });
  b = await startTestService({ workers: true, env, shareWith: a });
  rx = await startReceiver(() => ({ status: 200 }));
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await rx?.close();
});

interface ListedEvent {
  id: string;
  sequence: number;
  ordering_key: string | null;
  data: { id: string };
}
interface EventPage {
  items: ListedEvent[];
  has_more: boolean;
  count: number;
}

async function events(m: TestMerchant, query: string, mode = 'test') {
  const res = await a.app.inject({
    url: `/api/v1/merchant/events${query}`,
    headers: { ...m.auth, 'x-svc-mode': mode },
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: EventPage }>().data;
}

/** Every event of the merchant's mode through after_sequence=0, page after page. */
async function allInSequence(m: TestMerchant, mode = 'test'): Promise<ListedEvent[]> {
  const out: ListedEvent[] = [];
  for (let after = ''; ;) {
    const page = await events(m, `?after_sequence=0&limit=100${after}`, mode);
    out.push(...page.items);
    if (!page.has_more) return out;
    after = `&starting_after=${page.items.at(-1)!.id}`;
  }
}

/** An event recorded in a transaction of the service's database, as the cart sweep records its own. */
function emitIn(
  svc: TestService,
  m: TestMerchant,
  id: string,
  hold?: { recorded: () => void; until: Promise<void> },
) {
  return svc.ctx.db.transaction().execute(async (trx) => {
    await emitEvent(
      trx,
      {
        merchantId: m.merchantId,
        mode: 'test',
        type: 'customer.created',
        data: mergeData(sampleData('customer.created'), { id }),
      },
      new Date(svc.ctx.clock.now()),
    );
    hold?.recorded();
    await hold?.until;
  });
}

describe('sequence', () => {
  it('numbers events 1, 2, 3, ... with no gap under concurrent ingestion from two services', async () => {
    const m = await signupMerchant(a.app);
    const other = await signupMerchant(a.app);
    await createWebhook(a, m, `${rx.url}/seq`, ['order.created']);
    await Promise.all([
      ...Array.from({ length: 60 }, (_, i) => emit(i % 2 ? a : b, m, 'order.created', { id: `ord_${i}` })),
      ...Array.from({ length: 20 }, (_, i) => emitIn(i % 2 ? a : b, m, `cus_${i}`)),
      // another merchant's ingestion, interleaved: its own numbers
      ...Array.from({ length: 20 }, (_, i) => emit(i % 2 ? a : b, other, 'order.created', { id: `o_${i}` })),
      // the other mode of the same merchant: its own numbers too
      ...Array.from({ length: 5 }, (_, i) => emit(a, m, 'order.created', { id: `live_${i}` }, 'live')),
    ]);
    const listed = await allInSequence(m);
    expect(listed.map((e) => e.sequence)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect((await allInSequence(other)).map((e) => e.sequence)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect((await allInSequence(m, 'live')).map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);

    // after_sequence: what follows, oldest first, and nothing after the last
    const tail = await events(m, '?after_sequence=75');
    expect(tail.items.map((e) => e.sequence)).toEqual([76, 77, 78, 79, 80]);
    expect(tail.count).toBe(5);
    expect((await events(m, '?after_sequence=80')).items).toEqual([]);
    // the event object and the delivery body carry the same number
    const one = listed.find((e) => e.data.id === 'ord_7')!;
    const read = await a.app.inject({ url: `/api/v1/merchant/events/${one.id}`, headers: m.auth });
    expect(read.json<{ data: ListedEvent }>().data).toMatchObject({ sequence: one.sequence });
    await rx.waitFor(60, 20_000, (r) => r.path === '/seq');
    const bodies = rx.received.filter((r) => r.path === '/seq').map((r) => JSON.parse(r.body) as ListedEvent);
    const bySequence = new Map(listed.map((e) => [e.id, e.sequence]));
    expect(bodies.every((body) => body.sequence === bySequence.get(body.id))).toBe(true);
  }, 60_000);

  it('follows commit order: a transaction that records after another commits after it, with the next number', async () => {
    const m = await signupMerchant(a.app);
    let release!: () => void;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    let recorded!: () => void;
    const firstRecorded = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    const first = emitIn(a, m, 'cus_first', { recorded, until });
    await firstRecorded;
    // the second waits for the first's counter (or its connection, on the embedded database) until it commits
    const second = emitIn(b, m, 'cus_second');
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondDone).toBe(false);
    release();
    await Promise.all([first, second]);
    const listed = await allInSequence(m);
    expect(listed.map((e) => [e.data.id, e.sequence])).toEqual([
      ['cus_first', 1],
      ['cus_second', 2],
    ]);
  });

  it('takes ordering_key at ingestion, else data.id, and refuses one out of 1-200 characters', async () => {
    const m = await signupMerchant(a.app);
    const ingest = (orderingKey?: string) =>
      a.app.inject({
        method: 'POST',
        url: '/internal/v1/events',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
        payload: {
          merchant_id: m.merchantId,
          mode: 'test',
          type: 'order.created',
          data: mergeData(sampleData('order.created'), { id: 'ord_keyed' }),
          ...(orderingKey !== undefined ? { ordering_key: orderingKey } : {}),
        },
      });
    expect((await ingest('cart_9')).statusCode).toBe(202);
    expect((await ingest()).statusCode).toBe(202);
    for (const bad of ['', 'k'.repeat(201)]) {
      const res = await ingest(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: { code: string } }>().error.code).toBe('validation_failed');
    }
    const listed = await allInSequence(m);
    expect(listed.map((e) => e.ordering_key)).toEqual(['cart_9', 'ord_keyed']);
  });
});
