// Waiting for something another part of the system does in its own time (a worker delivers, a cache is
// invalidated, a child process prints): the one polling helper of the suite.
//
// Not vi.waitUntil: it polls on a timer, so a slow check can still be running when it gives up (an
// app.inject into a service the test then closes), it treats 0 and '' as "not yet", and its timeout says only
// "Timed out in waitUntil!". Here checks run one after another, and the timeout names what was awaited.

export interface EventuallyOptions {
  /** Give up after this long (default 10 s: what the suite waits for a worker; past it, something is stuck). */
  timeoutMs?: number;
  /** Pause between two checks (default 50 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout's message ("the delivery to succeed"); a function is asked at timeout. */
  what?: string | (() => string);
}

/**
 * Runs `check` until it returns a value other than `undefined` or `false`, and returns that value. Throws
 * once `timeoutMs` has passed without one. A check that throws fails at once: an error is a bug, not "not
 * yet".
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 10_000, intervalMs = 50, what = 'the condition' }: EventuallyOptions = {},
): Promise<T> {
  const started = Date.now();
  for (let checks = 1; ; checks++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) {
      throw new Error(
        `eventually: still waiting for ${typeof what === 'function' ? what() : what} after ${timeoutMs} ms (${checks} checks)`,
      );
    }
    // eslint-disable-next-line no-restricted-syntax -- the pause between two checks of the one polling helper
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, timeoutMs - elapsed)));
  }
}
