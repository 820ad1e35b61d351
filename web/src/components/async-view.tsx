import type { ReactNode } from 'react';
import { ApiError } from '../lib/api.ts';
import type { AsyncState } from '../lib/use-async.ts';
import { ErrorBox } from './error-box.tsx';

interface Props<T> {
  state: AsyncState<T>;
  onRetry: () => void;
  label: string;
  children: (data: T) => ReactNode;
}

/** The loading and error states every view shares; the view draws the data (and its own empty state). */
export function AsyncView<T>({ state, onRetry, label, children }: Props<T>) {
  if (state.status === 'loading') {
    return (
      <div className="loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        Loading {label}…
      </div>
    );
  }
  // A 404 will not change on a second try: no retry button for it.
  if (state.status === 'error') {
    const gone = state.error instanceof ApiError && state.error.status === 404;
    return <ErrorBox error={state.error} {...(gone ? {} : { onRetry })} />;
  }
  return <>{children(state.data)}</>;
}
