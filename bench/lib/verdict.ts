// A row's verdict comes from its spread across rounds, never from one figure. On a shared 2-core host the
// same code read 0.38 and 0.45 of the bare server in two full runs an hour apart, and a throughput ratio
// swung 2x between runs: a single round (or the best of two) crossed a target one way or the other by
// chance. So a row is `met` only when every round is on the good side of its target, `short` only when every
// round is on the bad side, and `undecided` when the rounds straddle it, which says "measure again on a
// quieter machine" instead of guessing.

export interface Target {
  /** What the target bounds: the ratio to the same-run baseline, or the figure itself. */
  of: 'ratio' | 'value';
  op: '>=' | '<=';
  limit: number;
}

export type Verdict = 'met' | 'short' | 'undecided' | 'info' | 'n/a';

/** Fewer rounds than this give no verdict: three is the least that shows whether rounds agree. */
export const MIN_ROUNDS = 3;

export interface Spread {
  min: number;
  max: number;
}

export function finite(xs: readonly (number | null | undefined)[]): number[] {
  return xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
}

/** The middle value (the mean of the two middle ones for an even count); null for no value. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function spreadOf(xs: readonly number[]): Spread | null {
  if (xs.length === 0) return null;
  return { min: Math.min(...xs), max: Math.max(...xs) };
}

function good(x: number, t: Target): boolean {
  return t.op === '>=' ? x >= t.limit : x <= t.limit;
}

/**
 * The verdict on the rounds of what the target bounds (each round's ratio, or each round's figure).
 * Without a target, `info`; without a figure, `n/a`.
 */
export function judge(rounds: readonly number[], target: Target | undefined): Verdict {
  const spread = spreadOf(rounds);
  if (!spread) return 'n/a';
  if (!target) return 'info';
  if (rounds.length < MIN_ROUNDS) return 'undecided';
  const low = good(spread.min, target);
  const high = good(spread.max, target);
  if (low && high) return 'met';
  if (!low && !high) return 'short';
  return 'undecided';
}
