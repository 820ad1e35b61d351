// How the app authenticates at the token, revocation and introspection endpoints (API.md section 12.3): the
// method in force, the registered public keys (kid, algorithm, type), and for the owner the switch to
// private_key_jwt by pasting a JWK or JWKS, and back to the client secret. Both are the contract's PATCH of
// the app; a refusal, ours before sending or the service's naming the key, is shown in words.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { App } from '../../lib/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { GUIDE_URL } from './app-install-card.tsx';
import { algorithmOf, keyType, MAX_KEYS, readJwks, type Jwks } from './client-auth-keys.ts';

type Open = null | 'keys' | 'secret';

const contractPath = (app: App) => `/apps/${encodeURIComponent(app.id)}`;

export function AppClientAuthCard({ app, onChanged }: { app: App; onChanged: (app: App) => void }) {
  const canWrite = useCan('developer');
  const [open, setOpen] = useState<Open>(null);
  const onKeys = app.token_endpoint_auth_method === 'private_key_jwt';
  const keys = app.jwks?.keys ?? [];

  return (
    <section className="card" aria-labelledby="client-auth-title">
      <div className="card-header">
        <h3 className="card-title" id="client-auth-title">
          Client authentication
        </h3>
        {canWrite && (
          <div className="client-auth-actions">
            <button type="button" className="btn btn-small" onClick={() => setOpen('keys')}>
              {onKeys ? 'Replace keys' : 'Use private_key_jwt'}
            </button>
            {onKeys && (
              <button type="button" className="btn btn-small" onClick={() => setOpen('secret')}>
                Use the client secret
              </button>
            )}
          </div>
        )}
      </div>
      <div className="card-padded">
        <dl className="props">
          <dt>Method in force</dt>
          <dd data-testid="client-auth-method">
            {onKeys ? (
              <>
                <strong>private_key_jwt</strong>: a JWT signed with one of the keys below (RFC 7523). The
                client secret is refused.
              </>
            ) : (
              <>
                <strong>Client secret</strong> (<code>{app.token_endpoint_auth_method}</code>): HTTP Basic or
                in the form body.
              </>
            )}
          </dd>
        </dl>
        {keys.length > 0 ? (
          <>
            <p className="client-auth-caption">
              {onKeys ? 'Registered keys, in force' : 'Registered keys, not in use while the secret is'}
            </p>
            <div className="table-wrap">
              <table className="table table-stack" aria-label="Registered keys">
                <thead>
                  <tr>
                    <th scope="col">Key ID</th>
                    <th scope="col">Algorithm</th>
                    <th scope="col">Type</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.map((k, i) => (
                    <tr key={`${k.kid ?? ''}:${i}`}>
                      <td data-label="Key ID">
                        {k.kid ? <code>{k.kid}</code> : <span className="muted">none</span>}
                      </td>
                      <td data-label="Algorithm">
                        <code>{algorithmOf(k)}</code>
                      </td>
                      <td data-label="Type">{keyType(k)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : (
          <p className="muted">
            No public key registered. With private_key_jwt your app proves itself with a key that never leaves
            its server, instead of sending the secret (chapter 14 of{' '}
            <a href={GUIDE_URL}>the OAuth apps guide</a>).
          </p>
        )}
      </div>
      {open === 'keys' && (
        <KeysDialog
          app={app}
          onClose={() => setOpen(null)}
          onSaved={(next) => {
            onChanged(next);
            setOpen(null);
          }}
        />
      )}
      {open === 'secret' && (
        <ConfirmDialog
          title="Use the client secret"
          confirmLabel="Use the client secret"
          danger={false}
          onClose={() => setOpen(null)}
          onConfirm={async () => {
            onChanged(
              await api<App>('PATCH', contractPath(app), {
                token_endpoint_auth_method: 'client_secret_basic',
              }),
            );
            setOpen(null);
          }}
        >
          <p>
            The token, revocation and introspection endpoints take <strong>{app.name}</strong>&apos;s client
            secret again, at once on every process, and refuse assertions. The keys stay registered, so you
            can switch back.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function KeysDialog({
  app,
  onClose,
  onSaved,
}: {
  app: App;
  onClose: () => void;
  onSaved: (app: App) => void;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const save = async (jwks: Jwks) => {
    setBusy(true);
    try {
      onSaved(
        await api<App>('PATCH', contractPath(app), { token_endpoint_auth_method: 'private_key_jwt', jwks }),
      );
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <Dialog title="Use private_key_jwt" onClose={onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          const read = readJwks(text);
          if ('problem' in read) {
            setProblem(read.problem);
            return;
          }
          setProblem(null);
          void save(read.jwks);
        }}
      >
        <div className="dialog-body">
          <p>
            Paste the public half of your app&apos;s key pair, up to {MAX_KEYS} keys: Ed25519, P-256 or RSA of
            at least 2048 bits. They replace the keys registered now, and the client secret stops working for{' '}
            <strong>{app.name}</strong> at once.
          </p>
          <label className="field">
            <span className="label">Public keys (JWK or JWKS)</span>
            <textarea
              className="input mono-small"
              rows={8}
              value={text}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setText(e.target.value)}
              aria-invalid={problem !== null}
              aria-describedby={problem ? 'jwks-hint jwks-problem' : 'jwks-hint'}
              placeholder='{"keys":[{"kty":"OKP","crv":"Ed25519","x":"…","kid":"k1"}]}'
            />
            <span className="hint" id="jwks-hint">
              <code>node_modules/.bin/node examples/oauth-app.ts --print-jwks</code> prints one. Never paste a
              private key.
            </span>
          </label>
          {problem && (
            <p className="field-error" id="jwks-problem" role="alert">
              {problem}
            </p>
          )}
          {error !== null && <ErrorBox error={error} />}
        </div>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Use these keys'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
