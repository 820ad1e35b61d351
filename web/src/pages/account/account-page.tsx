// Settings → Account (API.md section 11.3): the signed-in user's second factors (an authenticator app, enrolled
// with a QR code of its otpauth URL; passkeys), recovery codes shown once and regenerated, the owner's
// requirement of a factor for the whole team, and the user's sessions with "Sign out". Laid out as the other
// tabs are: a header with its guide, then padded cards whose buttons keep their own width.
import { useState, type FormEvent } from 'react';
import QRCode from 'qrcode';
import { api, ApiError } from '../../lib/api.ts';
import { registerPasskey } from '../../lib/second-factor.ts';
import { askStepUp } from '../../lib/step-up.ts';
import type { ListPage, Me } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { SessionsSection } from './sessions-section.tsx';
import { TeamSecuritySection } from './team-security.tsx';

interface Factors {
  totp: boolean;
  passkeys: number;
  recovery_codes_left: number;
}
interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}
function textOf(form: HTMLFormElement, name: string): string {
  const value = new FormData(form).get(name);
  return typeof value === 'string' ? value : '';
}

/** A change that needs the password and a factor: a recent step-up stands for the factor, else it is asked. */
async function withPassword(method: string, path: string, password: string): Promise<void> {
  try {
    await api(method, path, { password });
  } catch (err) {
    const needsFactor = err instanceof ApiError && err.code === 'validation_failed';
    if (!needsFactor || !(await askStepUp())) throw err;
    await api(method, path, { password });
  }
}

/**
 * A member of a merchant that requires a second factor, without one (API.md 12.4): what is asked, and the two
 * ways to give it, in place of the cards that would only answer errors.
 */
function EnrolmentBanner({ me }: { me: Me }) {
  return (
    <section className="warning stack" aria-labelledby="enrol-title" data-testid="enrolment-banner">
      <h2 id="enrol-title" className="section-title">
        {me.merchant.name} requires a second factor
      </h2>
      <p>
        Every member of {me.merchant.name} signs in with a second factor. Add one of these two to continue,
        and the rest of the dashboard opens at once:
      </p>
      <ul>
        <li>
          <strong>An authenticator app</strong> (Google Authenticator, 1Password, Authy…): scan a QR code,
          then type the 6-digit code it shows.
        </li>
        <li>
          <strong>A passkey</strong>: this device’s fingerprint, face or PIN, or a security key.
        </li>
      </ul>
    </section>
  );
}

export function AccountPage({
  me,
  onSignedOut,
  onEnrolled,
}: {
  me: Me;
  onSignedOut: () => void;
  /** A held member enrolled a factor: the signed-in state is read again. */
  onEnrolled?: () => void;
}) {
  const factors = useAsync(() => api<Factors>('GET', '/auth/mfa'), []);
  const [codes, setCodes] = useState<string[] | null>(null);
  const held = me.mfa_enrolment_required === true;
  const reload = () => {
    factors.reload(true);
    if (held) onEnrolled?.();
  };

  return (
    <section className="account" aria-labelledby="section-title">
      {held && <EnrolmentBanner me={me} />}
      <PageHeader
        title="Sign-in and security"
        description={`How you, ${me.user.email}, sign in: your second factors, your recovery codes and where you are signed in.`}
        guide="quickstart"
        guideAnchor="7-protect-your-account"
      />
      <AsyncView state={factors.state} onRetry={() => factors.reload()} label="your second factors">
        {(f) => (
          <>
            <TotpSection on={f.totp} onEnrolled={setCodes} onChanged={reload} />
            <PasskeysSection onChanged={reload} />
            <RecoverySection factors={f} onCodes={setCodes} />
          </>
        )}
      </AsyncView>
      {!held && me.user.role === 'owner' && <TeamSecuritySection />}
      {!held && <SessionsSection onSignedOut={onSignedOut} />}
      {codes && <RecoveryCodesDialog codes={codes} onDone={() => setCodes(null)} />}
    </section>
  );
}

function TotpSection(props: { on: boolean; onEnrolled: (codes: string[]) => void; onChanged: () => void }) {
  const [enrolment, setEnrolment] = useState<{ secret: string; url: string; qr: string } | null>(null);
  const [turningOff, setTurningOff] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const start = () => {
    setError(null);
    api<{ secret: string; otpauth_url: string }>('POST', '/auth/mfa/totp', {})
      .then(async (e) =>
        setEnrolment({ secret: e.secret, url: e.otpauth_url, qr: await QRCode.toDataURL(e.otpauth_url) }),
      )
      .catch(setError);
  };
  const confirm = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = textOf(e.currentTarget, 'code').trim();
    setError(null);
    api<{ recovery_codes: string[] }>('POST', '/auth/mfa/totp/confirm', { code }).then((r) => {
      setEnrolment(null);
      props.onChanged();
      props.onEnrolled(r.recovery_codes);
    }, setError);
  };

  return (
    <section className="card card-padded stack" aria-labelledby="totp-title">
      <h3 id="totp-title" className="card-title">
        Authenticator app
      </h3>
      <p>{props.on ? 'On: sign-in asks for a code of your app.' : 'Off.'}</p>
      {!props.on && !enrolment && (
        <button type="button" className="btn btn-primary" onClick={start}>
          Set up an authenticator app
        </button>
      )}
      {enrolment && (
        <form onSubmit={confirm} className="stack">
          <p>Scan this code with your authenticator app, or type the key into it.</p>
          <img src={enrolment.qr} alt="QR code of the authenticator app's key" width={200} height={200} />
          <p>
            Key: <code data-testid="totp-secret">{enrolment.secret}</code>
          </p>
          <label className="field">
            <span className="label">Code from the app</span>
            <input
              className="input"
              name="code"
              required
              inputMode="numeric"
              pattern="[0-9]{6}"
              autoComplete="one-time-code"
            />
          </label>
          <button type="submit" className="btn btn-primary">
            Turn on
          </button>
        </form>
      )}
      {props.on && (
        <button type="button" className="btn" onClick={() => setTurningOff(true)}>
          Turn off the authenticator app
        </button>
      )}
      {error !== null && <ErrorBox error={error} />}
      {turningOff && (
        <PasswordDialog
          title="Turn off the authenticator app"
          action="Turn off"
          onCancel={() => setTurningOff(false)}
          onPassword={async (password) => {
            await withPassword('DELETE', '/auth/mfa/totp', password);
            setTurningOff(false);
            props.onChanged();
          }}
        />
      )}
    </section>
  );
}

function PasskeysSection({ onChanged }: { onChanged: () => void }) {
  const list = useAsync(() => api<ListPage<Passkey>>('GET', '/auth/passkeys'), []);
  const [error, setError] = useState<unknown>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);

  const add = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const name = textOf(form, 'name').trim() || 'Passkey';
    setError(null);
    registerPasskey(name).then(() => {
      form.reset();
      list.reload(true);
      onChanged();
    }, setError);
  };

  return (
    <section className="card card-padded stack" aria-labelledby="passkeys-title">
      <h3 id="passkeys-title" className="card-title">
        Passkeys
      </h3>
      <AsyncView state={list.state} onRetry={() => list.reload()} label="passkeys">
        {(page) =>
          page.items.length === 0 ? (
            <p>No passkeys yet.</p>
          ) : (
            <ul className="plain-list" aria-label="Your passkeys">
              {page.items.map((p) => (
                <li key={p.id} className="account-row">
                  <span>
                    <strong>{p.name}</strong> · added <TimeText value={p.created_at} /> · last used{' '}
                    {p.last_used_at ? <TimeText value={p.last_used_at} /> : 'never'}
                  </span>
                  <button type="button" className="btn btn-ghost" onClick={() => setRemoving(p)}>
                    Remove {p.name}
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </AsyncView>
      <form onSubmit={add} className="account-add">
        <label className="field">
          <span className="label">Passkey name</span>
          <input className="input" name="name" maxLength={100} placeholder="Laptop" />
        </label>
        <button type="submit" className="btn btn-primary">
          Add a passkey
        </button>
      </form>
      {error !== null && <ErrorBox error={error} />}
      {removing && (
        <PasswordDialog
          title={`Remove ${removing.name}`}
          action="Remove"
          onCancel={() => setRemoving(null)}
          onPassword={async (password) => {
            await withPassword('DELETE', `/auth/passkeys/${removing.id}`, password);
            setRemoving(null);
            list.reload(true);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

function RecoverySection({ factors, onCodes }: { factors: Factors; onCodes: (codes: string[]) => void }) {
  const [error, setError] = useState<unknown>(null);
  if (!factors.totp && factors.passkeys === 0) return null;
  return (
    <section className="card card-padded stack" aria-labelledby="recovery-title">
      <h3 id="recovery-title" className="card-title">
        Recovery codes
      </h3>
      <p>
        {factors.recovery_codes_left} unused. Each works once, in place of a code, if you lose your factors.
      </p>
      <button
        type="button"
        className="btn"
        onClick={() => {
          setError(null);
          api<{ recovery_codes: string[] }>('POST', '/auth/mfa/recovery-codes', {}).then(
            (r) => onCodes(r.recovery_codes),
            setError,
          );
        }}
      >
        Regenerate recovery codes
      </button>
      {error !== null && <ErrorBox error={error} />}
    </section>
  );
}

function RecoveryCodesDialog({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Dialog title="Your recovery codes" onClose={onDone} dismissable={false}>
      <p>Keep them somewhere safe: they are shown only now, and each works once.</p>
      <ul className="plain-list recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <CopyButton value={codes.join('\n')} label="Copy the codes" />
      <button type="button" className="btn btn-primary btn-block" onClick={onDone}>
        I saved them
      </button>
    </Dialog>
  );
}

function PasswordDialog(props: {
  title: string;
  action: string;
  onCancel: () => void;
  onPassword: (password: string) => Promise<void>;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const password = textOf(e.currentTarget, 'password');
    setBusy(true);
    setError(null);
    props
      .onPassword(password)
      .catch(setError)
      .finally(() => setBusy(false));
  };
  return (
    <Dialog title={props.title} onClose={props.onCancel}>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span className="label">Your password</span>
          <input className="input" name="password" type="password" required autoComplete="current-password" />
        </label>
        {error !== null && <ErrorBox error={error} />}
        <button type="submit" className="btn btn-danger btn-block" disabled={busy}>
          {props.action}
        </button>
        <button type="button" className="btn btn-ghost btn-block" onClick={props.onCancel}>
          Cancel
        </button>
      </form>
    </Dialog>
  );
}
