// Reading a view again while what it shows is still changing (pending deliveries), less often the longer it
// stays so: 2 s, doubling to 30 s, back to 2 s once it settles. Every read is cancelled with its view: a read
// that outlived it could reach the service after a sign-out and answer 401 to a page that is gone.
import { useCallback, useEffect, useRef } from 'react';

const FIRST_MS = 2000;
const MAX_MS = 30_000;
const SOON_MS = 800;

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

/** A function that reads the view again shortly (after an action the service carries out at once), unless the
 *  view is gone by then. */
export function useReloadSoon(reload: (quiet: boolean) => void): () => void {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => reload(true), SOON_MS);
  }, [reload]);
}
