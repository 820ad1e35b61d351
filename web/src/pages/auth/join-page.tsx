// The page an invitation's link opens (/dashboard/join#token=svc_inv_...): what the invitation is for, then
// accepting it. The token stays in the fragment, which no request carries, and goes to the service in a POST
// body. A new email sets its password here; an existing user gives its password, or accepts with one click
// when it is signed in already. Accepting signs in with the new membership's session.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../../lib/api.ts';
import type { InvitationPreview, Me } from '../../lib/types.ts';
import { ErrorBox } from '../../components/error-box.tsx';
import { Link } from '../../components/link.tsx';

interface Props {
  /** The signed-in user, if any. */
  me: Me | null;
  onJoined: (me: Me) => void;
}

const tokenOf = () => new URLSearchParams(location.hash.slice(1)).get('token') ?? '';

export function JoinPage({ me, onJoined }: Props) {
  const [token] = useState(tokenOf);
  const [preview, setPreview] = useState<InvitationPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    document.title = 'Join a team · svc';
    api<InvitationPreview>('POST', '/auth/invitation', { token }).then(setPreview, setError);
  }, [token]);

  const signedInAsInvitee = me !== null && preview !== null && me.user.email === preview.email;

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    setBusy(true);
    setError(null);
    api('POST', '/auth/accept-invitation', {
      token,
      password: signedInAsInvitee ? undefined : text('password'),
      name: preview?.account_exists ? undefined : text('name'),
    })
      .then(() => api<Me>('GET', '/me'))
      .then(onJoined, (err: unknown) => {
        setBusy(false);
        setError(err);
        heading.current?.focus();
      });
  };

  return (
    <main className="auth">
      <div className="auth-brand" aria-hidden="true">
        <span className="logo">svc</span>
      </div>
      <div className="card auth-card">
        <h1 className="auth-title" ref={heading} tabIndex={-1}>
          {preview ? `Join ${preview.merchant.name}` : 'Join a team'}
        </h1>
        {preview === null ? (
          error !== null ? (
            <>
              <ErrorBox error={error} />
              <p className="muted">Ask whoever invited you for a new link.</p>
            </>
          ) : (
            <div className="loading" role="status">
              <span className="spinner" aria-hidden="true" />
              Reading the invitation…
            </div>
          )
        ) : (
          <form onSubmit={submit} className="stack">
            <p>
              You are invited as <strong>{preview.role}</strong>, with the email{' '}
              <strong>{preview.email}</strong>.
            </p>
            {signedInAsInvitee ? null : preview.account_exists ? (
              <label className="field">
                <span className="label">Your password</span>
                <input
                  className="input"
                  name="password"
                  type="password"
                  required
                  autoComplete="current-password"
                />
              </label>
            ) : (
              <>
                <label className="field">
                  <span className="label">Your name</span>
                  <input className="input" name="name" maxLength={100} autoComplete="name" />
                </label>
                <label className="field">
                  <span className="label">Choose a password</span>
                  <input
                    className="input"
                    name="password"
                    type="password"
                    required
                    minLength={10}
                    autoComplete="new-password"
                    aria-describedby="password-hint"
                  />
                  <span className="hint" id="password-hint">
                    At least 10 characters.
                  </span>
                </label>
              </>
            )}
            {error !== null && <ErrorBox error={error} />}
            <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
              {busy ? 'Please wait…' : 'Accept invitation'}
            </button>
          </form>
        )}
      </div>
      {me === null && (
        <p className="auth-switch">
          Not for you? <Link to="/signin">Sign in</Link>
        </p>
      )}
    </main>
  );
}
