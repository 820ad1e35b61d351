// Asks for one second factor: a code of the authenticator app (or a recovery code), or the browser's passkey.
// The sign-in's second step and the step-up dialog both use it.
import { useState, type FormEvent } from 'react';
import { passkeyFactor, typedFactor, type Factor } from '../lib/second-factor.ts';
import { ErrorBox } from './error-box.tsx';

interface Props {
  /** Sends the factor; a rejection is shown and the form stays. */
  onFactor: (factor: Factor) => Promise<void>;
  /** Where the passkey's options come from, with what body; no passkey button without it. */
  passkey?: { path: string; body?: object } | undefined;
  submitLabel: string;
}

export function FactorForm({ onFactor, passkey, submitLabel }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const run = (factor: () => Promise<Factor>) => {
    setBusy(true);
    setError(null);
    factor()
      .then(onFactor)
      .catch((err: unknown) => setError(err))
      .finally(() => setBusy(false));
  };

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = new FormData(e.currentTarget).get('code');
    run(async () => typedFactor(typeof code === 'string' ? code : ''));
  };

  return (
    <form onSubmit={submit} className="stack">
      <label className="field">
        <span className="label">Authentication code</span>
        <input
          className="input"
          name="code"
          required
          autoComplete="one-time-code"
          inputMode="text"
          maxLength={64}
          aria-describedby="code-hint"
        />
        <span className="hint" id="code-hint">
          The 6 digits of your authenticator app, or one of your recovery codes.
        </span>
      </label>
      {error !== null && <ErrorBox error={error} />}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        {busy ? 'Please wait…' : submitLabel}
      </button>
      {passkey && (
        <button
          type="button"
          className="btn btn-block"
          disabled={busy}
          onClick={() => run(() => passkeyFactor(passkey.path, passkey.body))}
        >
          Use a passkey
        </button>
      )}
    </form>
  );
}
