import type { ChainState } from '../../lib/types.ts';
import type { AsyncState } from '../../lib/use-async.ts';
import { ErrorBox } from '../../components/error-box.tsx';
import { TimeText } from '../../components/time-text.tsx';

const count = (n: number) => n.toLocaleString('en-US');

/** Entries written in the last seconds, which the chain has yet to take in. */
function Unsealed({ n }: { n: number }) {
  if (n === 0) return null;
  return (
    <span className="muted">
      {' '}
      · {count(n)} newer {n === 1 ? 'entry is' : 'entries are'} being sealed
    </span>
  );
}

/** Entries that no writer of the service made (rows inserted into the database by hand): never sealed. */
function Outside({ n, first }: { n: number; first: ChainState['first_outside_chain'] }) {
  if (n === 0) return null;
  return (
    <>
      {' '}
      {count(n)} {n === 1 ? 'entry is' : 'entries are'} outside the chain: inserted into the database by hand,
      not by the service (<a href="/guides/audit#entries-outside-the-chain">what to do</a>).
      {first && (
        <>
          {' '}
          Oldest: <span className="mono-small">{first.id}</span>
        </>
      )}
    </>
  );
}

/**
 * What the service's own check of the audit chain found (GET /developer/logs/chain): how far every hash and
 * link holds, or the first entry where it breaks, and the entries outside it.
 */
export function ChainStateLine({ state, onRetry }: { state: AsyncState<ChainState>; onRetry: () => void }) {
  if (state.status === 'loading') {
    return (
      <p className="chain-state muted" role="status" aria-live="polite">
        Checking the audit chain…
      </p>
    );
  }
  if (state.status === 'error') return <ErrorBox error={state.error} onRetry={onRetry} />;
  const { verified_through: through, broken, unsealed, checked_at } = state.data;
  const outside = <Outside n={state.data.outside_chain} first={state.data.first_outside_chain} />;
  if (broken) {
    return (
      <p className="chain-state" role="alert">
        <span className="badge badge-red">Chain broken</span> at entry #{count(broken.sequence)}:{' '}
        {broken.issue}.{' '}
        {through ? `Verified up to entry #${count(through.sequence)}.` : 'No entry before it verifies.'}{' '}
        <span className="mono-small">{broken.id}</span>
        {outside}
      </p>
    );
  }
  if (state.data.state === 'outside_chain') {
    return (
      <p className="chain-state" role="alert">
        <span className="badge badge-amber">Entries outside the chain</span>{' '}
        {through ? `Chain verified up to entry #${count(through.sequence)}, but` : 'No entry sealed, and'}
        {outside}
      </p>
    );
  }
  return (
    <p className="chain-state" role="status">
      <span className="badge badge-green">Chain verified</span>{' '}
      {through ? (
        <>
          up to entry #{count(through.sequence)} at <TimeText value={checked_at} />
        </>
      ) : (
        <>no entry sealed yet</>
      )}
      <Unsealed n={unsealed} />
    </p>
  );
}
