import { useState, type FormEvent } from 'react';
import { SCOPES, type Scope } from '../../lib/types.ts';
import { ErrorBox } from '../../components/error-box.tsx';
import { RedirectUrisField } from './redirect-uris-field.tsx';

export interface AppFields {
  name: string;
  description: string;
  redirect_uris: string[];
  allowed_scopes: Scope[];
}

interface Props {
  initial: AppFields;
  submitLabel: string;
  onSubmit: (fields: AppFields) => Promise<void>;
  onCancel: () => void;
}

export const SCOPE_TEXT: Record<Scope, string> = {
  'public:read': 'Read store data (GET requests)',
  'public:write': 'Change store data (POST, PUT, PATCH, DELETE)',
  'public:*': 'Read and change store data',
};

export function AppForm({ initial, submitLabel, onSubmit, onCancel }: Props) {
  const [fields, setFields] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [scopeError, setScopeError] = useState(false);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (fields.allowed_scopes.length === 0) {
      setScopeError(true);
      return;
    }
    setBusy(true);
    setError(null);
    onSubmit({ ...fields, redirect_uris: fields.redirect_uris.map((u) => u.trim()).filter(Boolean) }).catch(
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  const toggleScope = (scope: Scope) => {
    setScopeError(false);
    setFields((f) => ({
      ...f,
      allowed_scopes: f.allowed_scopes.includes(scope)
        ? f.allowed_scopes.filter((s) => s !== scope)
        : [...f.allowed_scopes, scope],
    }));
  };

  return (
    <form onSubmit={submit} className="stack">
      <label className="field">
        <span className="label">Name</span>
        <input
          className="input"
          required
          maxLength={100}
          value={fields.name}
          onChange={(e) => setFields({ ...fields, name: e.target.value })}
          aria-describedby="app-name-hint"
        />
        <span className="hint" id="app-name-hint">
          Shown to merchants on the consent screen.
        </span>
      </label>
      <label className="field">
        <span className="label">
          Description <span className="muted">(optional)</span>
        </span>
        <textarea
          className="input"
          rows={2}
          maxLength={500}
          value={fields.description}
          onChange={(e) => setFields({ ...fields, description: e.target.value })}
        />
      </label>
      <RedirectUrisField
        value={fields.redirect_uris}
        onChange={(redirect_uris) => setFields({ ...fields, redirect_uris })}
      />
      <fieldset className="choices" aria-describedby={scopeError ? 'scope-error' : undefined}>
        <legend className="label">Allowed scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="choice">
            <input
              type="checkbox"
              checked={fields.allowed_scopes.includes(scope)}
              onChange={() => toggleScope(scope)}
            />
            <code>{scope}</code>
            <span className="muted">{SCOPE_TEXT[scope]}</span>
          </label>
        ))}
        {scopeError && (
          <p className="field-error" id="scope-error" role="alert">
            Choose at least one scope.
          </p>
        )}
      </fieldset>
      {error !== null && <ErrorBox error={error} />}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
