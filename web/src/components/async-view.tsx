import type { ReactNode } from 'react';
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
  if (state.status === 'error') return <ErrorBox error={state.error} onRetry={onRetry} />;
  return <>{children(state.data)}</>;
}
