import { useState } from 'react';
import { api } from '../../lib/api.ts';
import type { Delivery, EventDefinition, ListPage, Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { ErrorBox } from '../../components/error-box.tsx';
import { AttemptResult } from './attempt-result.tsx';

interface Props {
  webhook: Webhook;
  onSent: () => void;
}

/** Sends a sample event now and shows how the endpoint answered its first attempt. */
export function TestEventPanel({ webhook, onSent }: Props) {
  const [event, setEvent] = useState(webhook.events[0] ?? '');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Delivery | null>(null);
  const [error, setError] = useState<unknown>(null);
  const catalog = useAsync(() => api<ListPage<EventDefinition>>('GET', '/webhooks/events'), []);
  // Any event of the catalog can be sent as a test; the subscribed ones come first.
  const others =
    catalog.state.status === 'ok'
      ? catalog.state.data.items.map((e) => e.id).filter((id) => !webhook.events.includes(id))
      : [];

  return (
    <form
      className="card card-padded stack"
      aria-labelledby="test-title"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setResult(null);
        api<Delivery>('POST', `/webhooks/${encodeURIComponent(webhook.id)}/test`, { event }).then(
          (d) => {
            setBusy(false);
            setResult(d);
            onSent();
          },
          (err: unknown) => {
            setBusy(false);
            setError(err);
          },
        );
      }}
    >
      <h3 className="card-title" id="test-title">
        Send a test event
      </h3>
      <label className="field">
        <span className="label">Event type</span>
        <select className="input" value={event} onChange={(e) => setEvent(e.target.value)}>
          <optgroup label="Subscribed">
            {webhook.events.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </optgroup>
          {others.length > 0 && (
            <optgroup label="Not subscribed">
              {others.map((e) => (
                <option key={e} value={e}>
                  {e}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </label>
      <div>
        <button type="submit" className="btn btn-primary" disabled={busy || !event}>
          {busy ? 'Sending…' : 'Send test event'}
        </button>
      </div>
      <div aria-live="polite">
        {error !== null && <ErrorBox error={error} />}
        {result && (
          <div className="test-result" data-testid="test-result">
            {result.attempts && result.attempts.length > 0 ? (
              <AttemptResult attempt={result.attempts[result.attempts.length - 1]!} status={result.status} />
            ) : (
              <p>
                Delivery <code>{result.id}</code> is {result.status}.
              </p>
            )}
          </div>
        )}
      </div>
    </form>
  );
}
