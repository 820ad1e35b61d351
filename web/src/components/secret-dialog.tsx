import { CopyButton } from './copy-button.tsx';
import { Dialog } from './dialog.tsx';

interface Props {
  title: string;
  secrets: { label: string; value: string }[];
  note?: string;
  onDone: () => void;
}

/** A secret the service will never show again: shown once, with a copy button and a plain warning. */
export function SecretDialog({ title, secrets, note, onDone }: Props) {
  return (
    <Dialog title={title} onClose={onDone} dismissable={false}>
      <p className="warning" role="alert">
        Copy the secret now and store it somewhere safe. It will not be shown again.
      </p>
      {secrets.map((s) => (
        <div className="secret" key={s.label}>
          <span className="label" id={`secret-${s.label.replace(/\W+/g, '-')}`}>
            {s.label}
          </span>
          <div className="secret-row">
            <code className="secret-value" aria-labelledby={`secret-${s.label.replace(/\W+/g, '-')}`}>
              {s.value}
            </code>
            <CopyButton value={s.value} label={`Copy ${s.label.toLowerCase()}`} />
          </div>
        </div>
      ))}
      {note && <p className="muted">{note}</p>}
      <div className="dialog-actions">
        <button type="button" className="btn btn-primary" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </Dialog>
  );
}
