import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../../lib/api.ts';
import type { Me } from '../../lib/types.ts';
import { ErrorBox } from '../../components/error-box.tsx';
import { FactorForm } from '../../components/factor-form.tsx';
import { Link } from '../../components/link.tsx';
import { passkeyFactor } from '../../lib/second-factor.ts';
import { signupOpen } from '../../lib/session.ts';

/** The first step's answer for a user with a second factor (API.md section 11.3). */
interface SecondStep {
  mfa_required: true;
  mfa_token: string;
  methods: string[];
}

interface Props {
  kind: 'signin' | 'signup';
  onSignedIn: (me: Me) => void;
}

export function AuthPage({ kind, onSignedIn }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [second, setSecond] = useState<SecondStep | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const signup = kind === 'signup';
  const failed = (err: unknown) => {
    setBusy(false);
    setError(err);
    heading.current?.focus();
  };
  const finish = () => api<Me>('GET', '/me').then(onSignedIn);

  useEffect(() => {
    document.title = `${signup ? 'Create your account' : 'Sign in'} · svc`;
    setError(null);
  }, [signup]);

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : '';
    };
    const email = text('email');
    const password = text('password');
    setBusy(true);
    setError(null);
    const call = signup
      ? api<object>('POST', '/auth/signup', { merchant_name: text('merchant_name'), email, password })
      : api<object>('POST', '/auth/login', { email, password });
    call
      .then(async (answer) => {
        if ('mfa_required' in answer) {
          setBusy(false);
          setSecond(answer as SecondStep);
          return;
        }
        await finish();
      })
      .catch(failed);
  };

  const withPasskey = () => {
    setBusy(true);
    setError(null);
    passkeyFactor('/auth/login/passkey/options')
      .then((factor) => api('POST', '/auth/login/passkey', factor))
      .then(finish)
      .catch(failed);
  };

  if (second) {
    return (
      <main className="auth">
        <div className="auth-brand" aria-hidden="true">
          <span className="logo">svc</span>
        </div>
        <div className="card auth-card">
          <h1 className="auth-title" tabIndex={-1}>
            Two-step verification
          </h1>
          <FactorForm
            submitLabel="Verify"
            passkey={
              second.methods.includes('passkey')
                ? { path: '/auth/login/passkey/options', body: { mfa_token: second.mfa_token } }
                : undefined
            }
            onFactor={async (factor) => {
              await api('POST', '/auth/login/mfa', { mfa_token: second.mfa_token, ...factor });
              await finish();
            }}
          />
        </div>
        <p className="auth-switch">
          <button type="button" className="btn btn-ghost" onClick={() => setSecond(null)}>
            Start again
          </button>
        </p>
      </main>
    );
  }

  return (
    <main className="auth">
      <div className="auth-brand" aria-hidden="true">
        <span className="logo">svc</span>
      </div>
      <div className="card auth-card">
        <h1 className="auth-title" ref={heading} tabIndex={-1}>
          {signup ? 'Create your account' : 'Sign in to your account'}
        </h1>
        <form onSubmit={submit} className="stack">
          {signup && (
            <label className="field">
              <span className="label">Business name</span>
              <input
                className="input"
                name="merchant_name"
                required
                maxLength={100}
                autoComplete="organization"
              />
            </label>
          )}
          <label className="field">
            <span className="label">Email</span>
            <input className="input" name="email" type="email" required autoComplete="email" />
          </label>
          <label className="field">
            <span className="label">Password</span>
            <input
              className="input"
              name="password"
              type="password"
              required
              minLength={signup ? 10 : 1}
              autoComplete={signup ? 'new-password' : 'current-password'}
              aria-describedby={signup ? 'password-hint' : undefined}
            />
            {signup && (
              <span className="hint" id="password-hint">
                At least 10 characters.
              </span>
            )}
          </label>
          {error !== null && <ErrorBox error={error} />}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Please wait…' : signup ? 'Create account' : 'Sign in'}
          </button>
          {!signup && (
            <button type="button" className="btn btn-block" disabled={busy} onClick={withPasskey}>
              Use a passkey
            </button>
          )}
        </form>
      </div>
      <p className="auth-switch">
        {signup ? (
          <>
            Already have an account? <Link to="/signin">Sign in</Link>
          </>
        ) : signupOpen() ? (
          <>
            New here? <Link to="/signup">Create an account</Link>
          </>
        ) : (
          <>Accounts on this service are made by its operator: ask them for yours.</>
        )}
      </p>
    </main>
  );
}
