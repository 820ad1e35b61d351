// The owner's requirement of a second factor for the whole team (API.md sections 11.3 and 12.4). Turning it on
// while some members have none asks first, naming them: they will be held to enrolment. The box shows the
// new state at once and says when the service saved it; a failure puts it back and says why. While a change
// is on its way the box is disabled, so that a second click cannot silently undo the first.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';

interface Settings {
  require_mfa: boolean;
  members_without_second_factor: { id: string; email: string }[];
}

const savedText = (on: boolean) =>
  on
    ? 'Saved: every member needs a second factor; one without it may only enrol one.'
    : 'Saved: a second factor is no longer required.';

export function TeamSecuritySection() {
  const settings = useAsync(() => api<Settings>('GET', '/settings'), []);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState<Settings | null>(null);

  const save = (current: Settings, on: boolean) => {
    settings.setData({ ...current, require_mfa: on });
    setBusy(true);
    setSaved(null);
    setError(null);
    return api<Settings>('PATCH', '/settings', { require_mfa: on }).then(
      (answer) => {
        settings.setData(answer);
        setSaved(savedText(answer.require_mfa));
        setBusy(false);
      },
      (err: unknown) => {
        settings.setData(current);
        setError(err);
        setBusy(false);
      },
    );
  };

  return (
    <section className="card card-padded stack" aria-labelledby="team-title">
      <h3 id="team-title" className="card-title">
        Team security
      </h3>
      <AsyncView state={settings.state} onRetry={() => settings.reload()} label="the team's settings">
        {(s) => (
          <>
            <label className="field-inline">
              <input
                type="checkbox"
                checked={s.require_mfa}
                disabled={busy}
                onChange={(e) => {
                  const on = e.target.checked;
                  if (on && s.members_without_second_factor.length > 0) setConfirming(s);
                  else void save(s, on);
                }}
              />{' '}
              Require a second factor of every member (one without may then only enrol)
            </label>
            {!s.require_mfa && s.members_without_second_factor.length > 0 && (
              <p className="muted small">
                Without a second factor today:{' '}
                {s.members_without_second_factor.map((m) => m.email).join(', ')}.
              </p>
            )}
          </>
        )}
      </AsyncView>
      <p className="small" role="status" aria-live="polite">
        {busy ? 'Saving…' : saved}
      </p>
      {error !== null && (
        <>
          <p className="small">Not saved: the setting is back as it was.</p>
          <ErrorBox error={error} />
        </>
      )}
      {confirming && (
        <ConfirmDialog
          title="Require a second factor?"
          confirmLabel="Require it"
          danger={false}
          onClose={() => setConfirming(null)}
          onConfirm={() => {
            const current = confirming;
            setConfirming(null);
            return save(current, true);
          }}
        >
          <p>
            {confirming.members_without_second_factor.length === 1
              ? 'This member has no second factor:'
              : `These ${confirming.members_without_second_factor.length} members have no second factor:`}
          </p>
          <ul className="plain-list" aria-label="Members without a second factor">
            {confirming.members_without_second_factor.map((m) => (
              <li key={m.id}>{m.email}</li>
            ))}
          </ul>
          <p>Until they add one, they can sign in only to enrol an authenticator app or a passkey.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
