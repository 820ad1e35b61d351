import { useState } from 'react';
import { api } from '../../lib/api.ts';
import type { Role } from '../../lib/role.ts';
import type { Invitation } from '../../lib/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { TimeText } from '../../components/time-text.tsx';

/** Invite by email: the single-use link is shown here once, with a copy button (and emailed, if set up). */
export function InviteCard({ roles, onInvited }: { roles: readonly Role[]; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [made, setMade] = useState<Invitation | null>(null);

  return (
    <div className="card card-padded">
      <h3 className="card-title" id="invite-title">
        Invite someone
      </h3>
      <form
        className="filters"
        aria-labelledby="invite-title"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          setMade(null);
          api<Invitation>('POST', '/members/invitations', { email: email.trim(), role }).then(
            (invitation) => {
              setBusy(false);
              setMade(invitation);
              setEmail('');
              onInvited();
            },
            (err: unknown) => {
              setBusy(false);
              setError(err);
            },
          );
        }}
      >
        <label className="field">
          <span className="label">Email</span>
          <input
            className="input"
            type="email"
            required
            maxLength={254}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="label">Role</span>
          <select className="input" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <div className="filters-actions">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Inviting…' : 'Invite'}
          </button>
        </div>
      </form>
      {error !== null && <ErrorBox error={error} />}
      {made?.url && (
        <div className="secret" role="status">
          <p className="warning">
            The invitation link for {made.email} ({made.role}) is shown this once
            {made.emailed ? ', and is on its way by email' : ': send it to them'}. It works once, for 7 days.
          </p>
          {made.replaced && (
            <p data-testid="invitation-replaced">
              It replaces the invitation sent to {made.email} <TimeText value={made.replaced.created_at} />{' '}
              (as {made.replaced.role}): that link no longer works.
            </p>
          )}
          <span className="label" id="invitation-link">
            Invitation link
          </span>
          <div className="secret-row">
            <code className="secret-value" aria-labelledby="invitation-link">
              {made.url}
            </code>
            <CopyButton value={made.url} label="Copy invitation link" />
          </div>
        </div>
      )}
    </div>
  );
}
