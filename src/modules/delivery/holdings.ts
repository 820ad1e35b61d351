// What one delivery worker holds: every delivery it claimed, from the claim until its attempt ends or its
// lease is given back. A delivery of a paced endpoint first waits for the start of its slot (given by the
// claim). A webhook has at most `perWebhook` attempts under way here; its other claimed deliveries wait in its
// queue, in claim order (a replay's behind the others), and the next starts the moment one of its attempts
// ends, with no database round trip in between. A delivery paced by a rate_limit that could not start within START_LATE_MS of its slot's start
// gives its lease back instead: starting later could put more than the endpoint's rate_limit into one second.
// The same deadline holds when its request is written (webhooks/sender.ts): a start on time whose connect was delayed is
// given back too. A slot of an adaptive pace alone may start late (`limited` in claim-deliveries.repository.ts).
import type { ClaimedDelivery } from './claim-deliveries.repository.ts';

/** How late after its slot's start a paced delivery may still start, and be written (see SPACING_MARGIN_MS). */
export const START_LATE_MS = 25;

/** The last moment a delivery may start and be written: a rate_limit's slot's start + START_LATE_MS; else none. */
export function slotDeadline(row: Pick<ClaimedDelivery, 'start_at' | 'limited'>): number | undefined {
  return row.start_at !== null && row.limited ? row.start_at + START_LATE_MS : undefined;
}

/** What the holdings do with a delivery; the worker supplies them. */
export interface HoldingSteps {
  /** The time start deadlines are checked against (epoch ms, the service's clock). */
  now(): number;
  /** Sends the delivery and has its outcome recorded; never rejects. */
  attempt(row: ClaimedDelivery): Promise<void>;
  /** The delivery's lease no longer covers an attempt: it is given back unsent. */
  giveBack(row: ClaimedDelivery): void;
  /** A paced delivery missed its slot: its lease is given back unsent, and a later claim gives it another. */
  missed(row: ClaimedDelivery): void;
  /** An attempt ended, and its webhook's next delivery started if one could. */
  ended(row: ClaimedDelivery): void;
}

export class Holdings {
  /** Attempts under way, by delivery. */
  readonly attempts = new Map<string, Promise<void>>();
  /** Claimed and not started: the last moment its lease lets it start (epoch ms), by delivery. */
  private readonly startBy = new Map<string, number>();
  /** Attempts under way, by webhook. */
  private readonly sending = new Map<string, number>();
  /** Claimed deliveries waiting for one of their webhook's attempts to end, by webhook. */
  private readonly queued = new Map<string, ClaimedDelivery[]>();
  /** Paced deliveries waiting for their slot, by delivery. */
  private readonly timed = new Map<string, { row: ClaimedDelivery; timer: NodeJS.Timeout }>();
  private closed = false;
  private readonly steps: HoldingSteps;
  private readonly perWebhook: number;

  constructor(steps: HoldingSteps, perWebhook: number) {
    this.steps = steps;
    this.perWebhook = perWebhook;
  }

  /** Deliveries held: sending or queued. */
  get size(): number {
    return this.attempts.size + this.startBy.size;
  }

  /** Deliveries held per webhook, sending or queued: what a claim counts against each webhook's bound. */
  byWebhook(): Record<string, number> {
    const held: Record<string, number> = {};
    for (const [webhook, n] of this.sending) held[webhook] = n;
    for (const [webhook, queue] of this.queued) held[webhook] = (held[webhook] ?? 0) + queue.length;
    for (const { row } of this.timed.values()) held[row.webhook_id] = (held[row.webhook_id] ?? 0) + 1;
    return held;
  }

  /**
   * A claimed delivery: at its slot's start if it has one, then started if its webhook may start one more
   * attempt, queued otherwise.
   */
  take(row: ClaimedDelivery, startBy: number): void {
    // Claimed again after its lease ran out while it was still held here (a stall longer than the lease):
    // the attempt under way here stays the only one, and records its outcome under the new lease.
    if (this.closed || this.attempts.has(row.id) || this.startBy.has(row.id)) return;
    this.startBy.set(row.id, startBy);
    const wait = row.start_at ? row.start_at - this.steps.now() : 0;
    if (wait <= 0) {
      this.admit(row);
      return;
    }
    const timer = setTimeout(() => {
      this.timed.delete(row.id);
      this.admit(row);
    }, wait);
    this.timed.set(row.id, { row, timer });
  }

  private admit(row: ClaimedDelivery): void {
    if (this.mayStart(row.webhook_id)) this.start(row);
    else {
      const queue = this.queued.get(row.webhook_id);
      if (!queue) this.queued.set(row.webhook_id, [row]);
      else {
        // a replay's deliveries wait behind the rest, as they do in the claim
        const firstReplay = row.replay ? -1 : queue.findIndex((q) => q.replay);
        if (firstReplay < 0) queue.push(row);
        else queue.splice(firstReplay, 0, row);
      }
    }
  }

  /** Starts no more attempts; answers the queued deliveries, which the caller gives back. */
  close(): string[] {
    this.closed = true;
    for (const { timer } of this.timed.values()) clearTimeout(timer);
    const unsent = [...[...this.queued.values()].flat(), ...[...this.timed.values()].map((t) => t.row)].map(
      (row) => row.id,
    );
    this.queued.clear();
    this.timed.clear();
    this.startBy.clear();
    return unsent;
  }

  private mayStart(webhookId: string): boolean {
    return (this.sending.get(webhookId) ?? 0) < this.perWebhook;
  }

  /** Starts the attempt, or gives the lease back if it no longer covers one or its slot passed (false). */
  private start(row: ClaimedDelivery): boolean {
    const deadline = this.startBy.get(row.id)!;
    this.startBy.delete(row.id);
    const now = this.steps.now();
    if (now > deadline) {
      this.steps.giveBack(row);
      return false;
    }
    const slotEnd = slotDeadline(row);
    if (slotEnd !== undefined && now > slotEnd) {
      this.steps.missed(row);
      return false;
    }
    bump(this.sending, row.webhook_id, 1);
    this.attempts.set(
      row.id,
      this.steps.attempt(row).finally(() => this.end(row)),
    );
    return true;
  }

  private end(row: ClaimedDelivery): void {
    bump(this.sending, row.webhook_id, -1);
    this.attempts.delete(row.id);
    this.startNext(row.webhook_id);
    this.steps.ended(row);
  }

  /** The webhook's next queued delivery that may still start, if any. */
  private startNext(webhookId: string): void {
    const queue = this.queued.get(webhookId);
    if (!queue) return;
    while (queue.length > 0 && !this.start(queue.shift()!));
    if (queue.length === 0) this.queued.delete(webhookId);
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}
