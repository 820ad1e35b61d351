// A steady load on a fleet for the fault tests (API.md 12.1, Faults): events ingested at a fixed rate through
// the processes that serve the API, API keys created once a second (each an audit entry written in its
// transaction), the events list read five times a second (a read a replica may serve), every answer recorded; and the receiver's arrivals counted per second, to compare delivery
// throughput before a fault with after it.
import { sampleData } from '../../src/modules/events/index.ts';
import type { Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN } from '../support/processes.ts';

const order = sampleData('order.created');

export interface Answer {
  at: number;
  status: number;
  /** The event's or the key's id, when accepted. */
  id?: string;
}

export interface FleetLoad {
  events: Answer[];
  keys: Answer[];
  reads: Answer[];
  stop(): Promise<void>;
}

/**
 * `perSecond` events a second, spread over `bases` in turn and over 10 senders (a slow answer delays only
 * its sender), plus one API key a second through the first base. A refused connection is status 0.
 */
export function fleetLoad(bases: () => string[], merchant: { id: string; token: string }, perSecond: number) {
  const events: Answer[] = [];
  const keys: Answer[] = [];
  const reads: Answer[] = [];
  const started = performance.now();
  let sent = 0;
  let on = true;
  const post = async (url: string, body: unknown, authorization: string, into: Answer[]) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).catch(() => undefined);
    const answer: Answer = { at: Date.now(), status: res?.status ?? 0 };
    const text = (await res?.text().catch(() => '')) ?? '';
    if (res && res.status >= 200 && res.status < 300)
      answer.id = (JSON.parse(text) as { data: { id: string } }).data.id;
    into.push(answer);
  };
  // Each sender takes the next event when its time has come: the rate holds whatever one answer takes.
  const sender = async () => {
    while (on) {
      const due = started + (sent * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          // eslint-disable-next-line no-restricted-syntax -- the load's pace, not a wait for a condition
          setTimeout(resolve, wait);
        });
        continue;
      }
      const n = sent++;
      const all = bases();
      await post(
        `${all[n % all.length]}/internal/v1/events`,
        { merchant_id: merchant.id, mode: 'test', type: 'order.created', data: { ...order, n } },
        `Bearer ${INTERNAL_TOKEN}`,
        events,
      );
    }
  };
  const keyMaker = async () => {
    for (let k = 0; on; k++) {
      await post(
        `${bases()[0]}/api/v1/merchant/api-keys`,
        { name: `fault ${k}` },
        `Bearer ${merchant.token}`,
        keys,
      );
      await new Promise<void>((resolve) => {
        // eslint-disable-next-line no-restricted-syntax -- one key a second, not a wait for a condition
        setTimeout(resolve, 1000);
      });
    }
  };
  const reader = async () => {
    while (on) {
      const at = Date.now();
      const res = await fetch(`${bases()[0]}/api/v1/merchant/events?limit=10`, {
        headers: { authorization: `Bearer ${merchant.token}` },
      }).catch(() => undefined);
      await res?.text().catch(() => '');
      reads.push({ at, status: res?.status ?? 0 });
      await new Promise<void>((resolve) => {
        // eslint-disable-next-line no-restricted-syntax -- five reads a second, not a wait for a condition
        setTimeout(resolve, 200);
      });
    }
  };
  const running = Promise.all([...Array.from({ length: 10 }, sender), keyMaker(), reader()]);
  return {
    events,
    keys,
    reads,
    stop: async () => {
      on = false;
      await running;
    },
  } satisfies FleetLoad;
}

/** Deliveries the receiver got in [from, to) (its clock, `Received.at`), per second. */
export function deliveredPerSecond(rx: Receiver, from: number, to: number): number {
  return rx.received.filter((r) => r.at >= from && r.at < to).length / ((to - from) / 1000);
}
