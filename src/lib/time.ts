/** Times leave the service as ISO 8601 UTC with milliseconds and `Z` (API.md section 1). */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

/**
 * What time it is, in epoch ms: injected through the context, so that a test moves time instead of sleeping.
 * The only reader of the system's time in src/ (an ESLint rule says so).
 */
export interface Clock {
  now(): number;
}

/** The process's clock: the service's in production, and the CLI's, which runs without a service. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
