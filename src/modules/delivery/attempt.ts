// One attempt of one claimed delivery, and what it leaves behind: shared by the workers and by the test
// route, which sends its delivery's first attempt itself and answers with the outcome.
import type { Dispatcher } from 'undici';
import type { Context } from '../../context.ts';
import type { Prepared } from '../../db/prepared.ts';
import { decryptSecret } from '../../lib/secrets.ts';
import { idTime, newId } from '../../lib/ids.ts';
import { unpooled } from '../../lib/heap-bytes.ts';
import { attemptOutcome } from '../../lib/metrics.ts';
import { systemContext, writeAudit } from '../audit/index.ts';
import { disableFailing, sendOnce, signedHeaders, signingKey, type SendResult } from '../webhooks/index.ts';
import { cancelPendingDeliveries } from './deliveries.repository.ts';
import type { ClaimedDelivery } from './claim-deliveries.repository.ts';
import { outcomeOf } from './attempt-outcome.ts';
import { slotDeadline } from './holdings.ts';
import { recordOutcomes, slows, type OutcomeRow } from './record-outcomes.repository.ts';
import { decide } from './retry-schedule.ts';

// Decrypting costs ~5 us but a hot webhook is signed thousands of times a second: the module keeps the opened
// keys, keyed by the sealed text (a rotation seals a new one, so a stale key is never used).
export class SigningKeys {
  private readonly keys = new Map<string, Buffer>();
  private readonly masterKeys: readonly Buffer[];

  constructor(masterKeys: readonly Buffer[]) {
    this.masterKeys = masterKeys;
  }

  of(sealed: string): Buffer {
    let key = this.keys.get(sealed);
    if (!key) {
      if (this.keys.size > 10_000) this.keys.clear();
      // copied out of Node's 64 KiB Buffer pool, which a kept slice keeps alive whole (src/lib/heap-bytes.ts)
      key = unpooled(signingKey(decryptSecret(this.masterKeys, sealed)));
      this.keys.set(sealed, key);
    }
    return key;
  }

  /** The current secret, and the previous one while its overlap lasts: both sign every delivery then. */
  forDelivery(row: ClaimedDelivery, now: Date): Buffer[] {
    const keys = [this.of(row.secret_sealed)];
    if (row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > now)
      keys.push(this.of(row.previous_secret_sealed));
    return keys;
  }
}

/** What an attempt is sent with: an undici agent (the workers' own, or the request path's) and the keys. */
export interface Sending {
  readonly agent: Dispatcher;
  readonly keys: SigningKeys;
}

/** Counts the attempt and, when it failed, says so at info with what an operator needs to follow it up. */
function observeAttempt(
  ctx: Context,
  row: ClaimedDelivery,
  number: number,
  result: SendResult,
  nextAttemptAt: Date | null,
): void {
  const { metrics } = ctx;
  const outcome = attemptOutcome(result.status, result.error);
  metrics.attempt[outcome].inc();
  metrics.attemptDuration.observe(result.durationMs / 1000);
  // Delivery ids carry the time they were made, which is the event's for a fan-out (same statement).
  if (number === 1) {
    const made = idTime(row.id);
    if (Number.isFinite(made))
      metrics.firstAttemptLatency.observe(Math.max(0, result.startedAt.getTime() - made) / 1000);
  }
  if (outcome === '2xx') return;
  ctx.log.info(
    {
      webhook_id: row.webhook_id,
      delivery_id: row.id,
      event_id: row.event_id,
      attempt: number,
      outcome,
      status: result.status,
      // the class and first line only: the sender's messages hold no secret, the answer body is not logged
      error: result.error?.split(':', 1)[0] ?? null,
      next_attempt_at: nextAttemptAt?.toISOString() ?? null,
      test: row.test,
    },
    nextAttemptAt ? 'delivery attempt failed; retry scheduled' : 'delivery failed; no retry left',
  );
}

/**
 * An outcome, with what the recording needs to know beside it: the endpoint answered 410 (`gone`), and the
 * delivery was given a slot of its endpoint's pace (`paced`) or has an ordering key (`ordered`).
 */
export type AttemptResult = OutcomeRow & { gone: boolean; paced: boolean; ordered: boolean };

export async function runAttempt(
  ctx: Context,
  { agent, keys }: Sending,
  row: ClaimedDelivery,
): Promise<AttemptResult> {
  const number = row.attempt_count + 1;
  const base = {
    id: row.id,
    webhook_id: row.webhook_id,
    app_id: row.app_id,
    test: row.test,
    number,
    paced: row.start_at !== null,
    ordered: row.ordered,
  };
  const now = new Date(ctx.clock.now());
  if (!row.deliverable) {
    return {
      ...base,
      attempted: false,
      attempt_id: '',
      outcome: 'network_error',
      started_at: now.toISOString(),
      duration_ms: 0,
      response_status: null,
      response_body: null,
      request_headers: null,
      response_headers: null,
      error: null,
      status: 'cancelled',
      step: row.step,
      next_attempt_at: null,
      ok: false,
      gone: false,
    };
  }
  const headers = signedHeaders(keys.forDelivery(row, now), row.event_id, row.payload, now);
  const { webhookTimeoutMs } = ctx.config;
  // A delivery paced by a rate_limit is written within its slot or not at all (sendOnce rejects, the worker
  // gives it back).
  const writeBy = slotDeadline(row);
  const result = await sendOnce(
    agent,
    row.url,
    { ...headers },
    row.payload,
    webhookTimeoutMs,
    ctx.clock,
    writeBy,
  );
  const decision = decide(ctx.config.webhookRetrySchedule, row.step, result, new Date(ctx.clock.now()));
  observeAttempt(ctx, row, number, result, decision.nextAttemptAt);
  return {
    ...base,
    attempted: true,
    attempt_id: newId('att', result.startedAt.getTime()),
    outcome: outcomeOf(result.status, result.error),
    started_at: result.startedAt.toISOString(),
    duration_ms: result.durationMs,
    response_status: result.status,
    response_body: result.body,
    request_headers: JSON.stringify(headers),
    response_headers: result.headers ? JSON.stringify(result.headers) : null,
    error: result.error,
    status: decision.status,
    step: decision.step,
    next_attempt_at: decision.nextAttemptAt?.toISOString() ?? null,
    ok: decision.status === 'succeeded',
    gone: decision.gone && !row.test,
  };
}

/**
 * Records outcomes (one statement), then, only when some failed, disables the webhooks that answered 410 or
 * have failed for five days, cancels their pending deliveries and audits it, in one transaction. The answer:
 * how many deliveries waiting for their ordering key the outcomes released. `on`: where the recording runs, the
 * worker's prepared statements (the test route's on the service's database).
 */
export async function applyOutcomes(
  ctx: Context,
  worker: string,
  outcomes: readonly AttemptResult[],
  on: Prepared = { db: ctx.db },
): Promise<number> {
  if (outcomes.length === 0) return 0;
  const now = new Date(ctx.clock.now());
  const released = await recordOutcomes(
    on,
    worker,
    outcomes.map(({ gone: _gone, paced: _paced, ordered: _ordered, ...row }) => row),
    now,
    outcomes.every((o) => !o.paced && !o.ordered && !slows(o)),
  );
  const failing = [
    ...new Set(outcomes.filter((o) => o.attempted && !o.ok && !o.test).map((o) => o.webhook_id)),
  ];
  const gone = [...new Set(outcomes.filter((o) => o.gone).map((o) => o.webhook_id))];
  if (failing.length === 0 && gone.length === 0) return released;
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      const disabled = await disableFailing(trx, failing, gone, now);
      for (const webhook of disabled) {
        await cancelPendingDeliveries(trx, webhook.id, now);
        await writeAudit(trx, systemContext(ctx, webhook.merchant_id, webhook.mode), {
          action: 'webhook.auto_disabled',
          entityType: 'webhook',
          entityId: webhook.id,
          fields: { reason: webhook.disabled_reason },
        });
      }
      return disabled;
    })
    .then((disabled) => {
      for (const webhook of disabled) {
        const reason = gone.includes(webhook.id) ? 'gone' : 'failing';
        ctx.metrics.autoDisabled.labels(reason).inc();
        ctx.log.warn(
          {
            webhook_id: webhook.id,
            merchant_id: webhook.merchant_id,
            mode: webhook.mode,
            reason,
            why: webhook.disabled_reason,
          },
          'webhook disabled by the delivery engine',
        );
      }
    });
  return released;
}
