// What happens after an attempt (API.md section 7): a 2xx succeeds; anything else (a 3xx too: redirects are
// not followed) is retried after the next step of the schedule with +-20% jitter, so that endpoints that
// failed together are not retried in lockstep; a 429 or 503 with Retry-After waits at least that long,
// capped at the next-but-one step so a hostile header cannot park a delivery for ever; a 410 ends it (and
// disables the webhook); past the last step the delivery is `failed`.
import type { SendResult } from '../webhooks/index.ts';

export type Outcome = 'succeeded' | 'pending' | 'failed' | 'cancelled';

export interface Decision {
  status: Outcome;
  step: number;
  nextAttemptAt: Date | null;
  /** The endpoint answered 410 Gone: disable the webhook. */
  gone: boolean;
}

export function decide(
  schedule: readonly number[],
  step: number,
  result: Pick<SendResult, 'status' | 'retryAfter'>,
  now: Date,
  random: () => number = Math.random,
): Decision {
  const status = result.status;
  if (status !== null && status >= 200 && status < 300)
    return { status: 'succeeded', step, nextAttemptAt: null, gone: false };
  if (status === 410) return { status: 'failed', step, nextAttemptAt: null, gone: true };
  if (step >= schedule.length) return { status: 'failed', step, nextAttemptAt: null, gone: false };
  let delay = schedule[step]! * (0.8 + 0.4 * random());
  if (result.retryAfter !== null) {
    const cap = schedule[Math.min(step + 1, schedule.length - 1)]!;
    delay = Math.max(delay, Math.min(result.retryAfter, cap));
  }
  return {
    status: 'pending',
    step: step + 1,
    nextAttemptAt: new Date(now.getTime() + Math.round(delay * 1000)),
    gone: false,
  };
}
