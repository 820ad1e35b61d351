// The delivery worker's steps, one at a time, without a database or a receiver: what it holds (the
// per-webhook bound, the queue, the start deadline, the stop) and when a claim counts a webhook as bounded.
// The worker as a whole is tested end to end in delivery.test.ts, worker-lease.test.ts and worker-stop.test.ts.
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../src/modules/delivery/claim-deliveries.repository.ts';
import { Holdings } from '../../src/modules/delivery/holdings.ts';
import { reachesBound } from '../../src/modules/delivery/worker.ts';

const row = (id: string, webhook: string) => ({ id, webhook_id: webhook }) as ClaimedDelivery;

/** Holdings whose attempts end when the test says so, at a time the test sets. */
function harness(perWebhook: number) {
  const ends = new Map<string, () => void>();
  const log = {
    started: [] as string[],
    givenBack: [] as string[],
    ended: [] as string[],
    missed: [] as string[],
  };
  let now = 1_000;
  const holdings = new Holdings(
    {
      now: () => now,
      attempt: (r) => {
        log.started.push(r.id);
        return new Promise<void>((resolve) => ends.set(r.id, resolve));
      },
      giveBack: (r) => log.givenBack.push(r.id),
      missed: (r) => log.missed.push(r.id),
      ended: (r) => log.ended.push(r.id),
    },
    perWebhook,
  );
  /** Ends the attempt of `id` and lets its `finally` run. */
  const end = async (id: string) => {
    ends.get(id)!();
    await holdings.attempts.get(id);
    await Promise.resolve();
  };
  return { holdings, log, end, setNow: (t: number) => (now = t) };
}

describe('holdings', () => {
  it("starts at most the bound per webhook, queues the rest in claim order, and another webhook's at once", async () => {
    const { holdings, log, end } = harness(2);
    for (const id of ['a1', 'a2', 'a3', 'a4']) holdings.take(row(id, 'wh_a'), 5_000);
    holdings.take(row('b1', 'wh_b'), 5_000);
    expect(log.started).toEqual(['a1', 'a2', 'b1']);
    expect(holdings.size).toBe(5);
    expect(holdings.byWebhook()).toEqual({ wh_a: 4, wh_b: 1 });

    await end('a2');
    expect(log.started).toEqual(['a1', 'a2', 'b1', 'a3']);
    expect(log.ended).toEqual(['a2']);
    expect(holdings.byWebhook()).toEqual({ wh_a: 3, wh_b: 1 });
    await end('a1');
    await end('b1');
    expect(log.started.at(-1)).toBe('a4');
    expect(holdings.byWebhook()).toEqual({ wh_a: 2 });
    await end('a3');
    await end('a4');
    expect(holdings.size).toBe(0);
    expect(holdings.byWebhook()).toEqual({});
  });

  it('holds a delivery claimed again while it is still held only once', () => {
    const { holdings, log } = harness(1);
    holdings.take(row('a1', 'wh_a'), 5_000);
    holdings.take(row('a2', 'wh_a'), 5_000);
    holdings.take(row('a1', 'wh_a'), 9_000); // sending
    holdings.take(row('a2', 'wh_a'), 9_000); // queued
    expect(log.started).toEqual(['a1']);
    expect(holdings.size).toBe(2);
  });

  it('gives back a queued delivery whose start deadline passed, and starts the next one instead', async () => {
    const { holdings, log, end, setNow } = harness(1);
    holdings.take(row('a1', 'wh_a'), 5_000);
    holdings.take(row('a2', 'wh_a'), 5_000); // claimed early: its lease runs out sooner
    holdings.take(row('a3', 'wh_a'), 9_000);
    setNow(6_000);
    await end('a1');
    expect(log.givenBack).toEqual(['a2']);
    expect(log.started).toEqual(['a1', 'a3']);
    expect(holdings.size).toBe(1);
  });

  it("gives back a rate_limit's delivery that missed its slot; an adaptive pace's starts late", () => {
    // The process was held 100 ms past both slots' start. A rate_limit's slot started that late could put
    // rate_limit + 1 into a second; a pace learnt from 429s is no promise, and giving its late slots back
    // gave them back again at each claim while the process stayed held (a loaded run: 140 attempts of 120
    // deliveries in 60 s, most of the rest claimed and given back over and over).
    const { holdings, log } = harness(4);
    const paced = (id: string, limited: boolean) =>
      ({ ...row(id, `wh_${id}`), start_at: 900, limited }) as ClaimedDelivery;
    holdings.take(paced('limit', true), 5_000);
    holdings.take(paced('pace', false), 5_000);
    expect(log.missed).toEqual(['limit']);
    expect(log.started).toEqual(['pace']);
  });

  it('gives back a delivery claimed too late to start at all', () => {
    const { holdings, log, setNow } = harness(4);
    setNow(6_000);
    holdings.take(row('a1', 'wh_a'), 5_000);
    expect(log.started).toEqual([]);
    expect(log.givenBack).toEqual(['a1']);
    expect(holdings.size).toBe(0);
  });

  it('once closed, answers the queued deliveries and starts nothing more', async () => {
    const { holdings, log, end } = harness(1);
    for (const id of ['a1', 'a2', 'a3']) holdings.take(row(id, 'wh_a'), 5_000);
    expect(holdings.close()).toEqual(['a2', 'a3']);
    holdings.take(row('a4', 'wh_a'), 5_000);
    await end('a1');
    expect(log.started).toEqual(['a1']);
    expect(holdings.size).toBe(0);
  });
});

describe('reachesBound', () => {
  it('says whether a webhook holds its bound once the claimed rows are held too', () => {
    expect(reachesBound({}, [], 2)).toBe(false);
    expect(reachesBound({ wh_a: 1 }, [row('b1', 'wh_b')], 2)).toBe(false);
    expect(reachesBound({ wh_a: 1 }, [row('a2', 'wh_a')], 2)).toBe(true);
    expect(reachesBound({ wh_a: 2 }, [], 2)).toBe(true);
  });
});
