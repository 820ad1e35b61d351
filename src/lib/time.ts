/** Times leave the service as ISO 8601 UTC with milliseconds and `Z` (API.md section 1). */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

/** What time it is, in epoch ms: injected through the context, so that a test moves time instead of sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
