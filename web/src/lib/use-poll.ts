// Reading a view again while what it shows is still changing (pending deliveries), less often the longer it
// stays so: 2 s, doubling to 30 s, back to 2 s once it settles.
import { useEffect, useRef } from 'react';

const FIRST_MS = 2000;
const MAX_MS = 30_000;

/** Calls `reload(true)` after each change of `state` while `active`, with the back-off above. */
export function usePollWhile(active: boolean, state: unknown, reload: (quiet: boolean) => void): void {
  const delay = useRef(FIRST_MS);
  useEffect(() => {
    if (!active) {
      delay.current = FIRST_MS;
      return;
    }
    const timer = setTimeout(() => reload(true), delay.current);
    delay.current = Math.min(delay.current * 2, MAX_MS);
    return () => clearTimeout(timer);
  }, [active, state, reload]);
}
