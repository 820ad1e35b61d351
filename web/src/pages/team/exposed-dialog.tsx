// After a removal, or from the former members' notice: the credentials the member saw in clear that still work
// (from the audit trail), and "Rotate all", with a grace for the old secrets; the new secrets are shown once.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { GRACE_CHOICES } from '../../lib/format.ts';
import type { ExposedCredential, ListPage, RotatedCredential } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { SecretDialog } from '../../components/secret-dialog.tsx';
import { TimeText } from '../../components/time-text.tsx';

const KIND: Record<ExposedCredential['type'], string> = {
  api_key: 'Key pair',
  client_secret: 'App client secret',
  webhook_secret: 'Webhook secret',
};

const describe = (c: { type: ExposedCredential['type']; id: string; name: string | null; mode: string }) =>
  `${KIND[c.type]} ${c.name ? `“${c.name}” ` : ''}(${c.id}, ${c.mode})`;

export function ExposedDialog({
  member,
  onClose,
}: {
  member: { id: string; email: string };
  onClose: () => void;
}) {
  const path = `/members/${encodeURIComponent(member.id)}/exposed-credentials`;
  const exposed = useAsync(() => api<ListPage<ExposedCredential>>('GET', path), [path]);
  const [seconds, setSeconds] = useState(3600);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [rotated, setRotated] = useState<RotatedCredential[] | null>(null);

  if (rotated) {
    const secrets = rotated
      .filter((r) => r.secret)
      .map((r) => ({ label: describe({ ...r, id: r.new_id ?? r.id }), value: r.secret! }));
    const others = rotated.filter((r) => !r.secret);
    return (
      <SecretDialog
        title="New secrets"
        secrets={secrets}
        note={
          others.length
            ? others.map((r) => `${describe(r)}: ${r.outcome}${r.error ? ` (${r.error})` : ''}`).join('; ')
            : undefined
        }
        onDone={onClose}
      />
    );
  }

  return (
    <Dialog title={`Credentials ${member.email} saw`} onClose={onClose} wide>
      <AsyncView state={exposed.state} onRetry={exposed.reload} label="exposed credentials">
        {(list) =>
          list.items.length === 0 ? (
            <>
              <p className="dialog-body">No credential this member saw in clear still works.</p>
              <div className="dialog-actions">
                <button type="button" className="btn btn-primary" onClick={onClose}>
                  Done
                </button>
              </div>
            </>
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                setBusy(true);
                setError(null);
                api<{ credentials: RotatedCredential[] }>('POST', `${path}/rotate`, {
                  previous_expires_in: seconds,
                }).then(
                  (answer) => setRotated(answer.credentials),
                  (err: unknown) => {
                    setBusy(false);
                    setError(err);
                  },
                );
              }}
            >
              <p className="dialog-body">
                {member.email} saw these secrets in clear, and they still work. Rotate them so that they stop.
              </p>
              <ul className="plain-list" aria-label="Exposed credentials">
                {list.items.map((c) => (
                  <li key={`${c.type} ${c.id}`}>
                    {describe(c)}: {c.how} <TimeText value={c.seen_at} />
                  </li>
                ))}
              </ul>
              <fieldset className="choices">
                <legend className="label">The old secrets stop working</legend>
                {GRACE_CHOICES.map((c) => (
                  <label key={c.seconds} className="choice">
                    <input
                      type="radio"
                      name="grace"
                      checked={seconds === c.seconds}
                      onChange={() => setSeconds(c.seconds)}
                    />
                    {c.label}
                  </label>
                ))}
              </fieldset>
              {error !== null && <ErrorBox error={error} />}
              <div className="dialog-actions">
                <button type="button" className="btn" onClick={onClose}>
                  Later
                </button>
                <button type="submit" className="btn btn-primary" disabled={busy}>
                  {busy ? 'Rotating…' : 'Rotate all'}
                </button>
              </div>
            </form>
          )
        }
      </AsyncView>
    </Dialog>
  );
}
