import { useState, type ReactNode } from 'react';
import { Dialog } from './dialog.tsx';
import { ErrorBox } from './error-box.tsx';

interface Props {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** When set, the person must type this text to confirm (irreversible, far-reaching actions). */
  typed?: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  typed,
  danger = true,
  onConfirm,
  onClose,
}: Props) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ready = typed === undefined || text === typed;

  return (
    <Dialog title={title} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!ready || busy) return;
          setBusy(true);
          setError(null);
          onConfirm().then(
            () => setBusy(false),
            (err: unknown) => {
              setBusy(false);
              setError(err);
            },
          );
        }}
      >
        <div className="dialog-body">{children}</div>
        {typed !== undefined && (
          <label className="field">
            <span className="label">
              Type <strong>{typed}</strong> to confirm
            </span>
            <input
              className="input"
              value={text}
              onChange={(e) => setText(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              autoFocus
            />
          </label>
        )}
        {error !== null && <ErrorBox error={error} />}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose} autoFocus={typed === undefined}>
            Cancel
          </button>
          <button
            type="submit"
            className={danger ? 'btn btn-danger' : 'btn btn-primary'}
            disabled={!ready || busy}
          >
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
