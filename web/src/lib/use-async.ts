// Loading, error and data of one request, with a reload; a newer request wins over an older one.
import { useCallback, useEffect, useRef, useState } from 'react';

export type AsyncState<T> =
  | { status: 'loading'; data?: undefined; error?: undefined }
  | { status: 'error'; data?: undefined; error: unknown }
  | { status: 'ok'; data: T; error?: undefined };

export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]) {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading' });
  const seq = useRef(0);
  const run = useCallback(load, deps);

  const reload = useCallback(
    (quiet = false) => {
      const n = ++seq.current;
      if (!quiet) setState({ status: 'loading' });
      run().then(
        (data) => n === seq.current && setState({ status: 'ok', data }),
        (error: unknown) => n === seq.current && setState({ status: 'error', error }),
      );
    },
    [run],
  );

  useEffect(() => {
    reload();
  }, [reload]);

  return { state, reload, setData: (data: T) => setState({ status: 'ok', data }) };
}
