import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { SCOPES, type KeyPair, type Scope } from '../../lib/types.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';

interface Props {
  onClose: () => void;
  onCreated: (key: KeyPair) => void;
}

export function GenerateKeyDialog({ onClose, onCreated }: Props) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['public:*']);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  return (
    <Dialog title="Generate key pair" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (scopes.length === 0) return;
          setBusy(true);
          setError(null);
          api<KeyPair>('POST', '/api-keys', { ...(name.trim() ? { name: name.trim() } : {}), scopes }).then(
            onCreated,
            (err: unknown) => {
              setBusy(false);
              setError(err);
            },
          );
        }}
      >
        <label className="field">
          <span className="label">
            Name <span className="muted">(optional)</span>
          </span>
          <input
            className="input"
            value={name}
            maxLength={100}
            placeholder="e.g. Production server"
            onChange={(e) => setName(e.target.value)}
            autoFocus
          />
        </label>
        <fieldset className="choices">
          <legend className="label">Secret key scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} className="choice">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={() =>
                  setScopes(scopes.includes(s) ? scopes.filter((x) => x !== s) : [...scopes, s])
                }
              />
              <code>{s}</code>
            </label>
          ))}
          <p className="hint">The publishable key is always read-only.</p>
        </fieldset>
        {error !== null && <ErrorBox error={error} />}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || scopes.length === 0}>
            {busy ? 'Generating…' : 'Generate'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
