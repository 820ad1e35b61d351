import { useState } from 'react';
import { GRACE_CHOICES } from '../lib/format.ts';
import { Dialog } from './dialog.tsx';
import { ErrorBox } from './error-box.tsx';

interface Props {
  title: string;
  intro: string;
  question: string;
  confirmLabel: string;
  defaultSeconds: number;
  onConfirm: (seconds: number) => Promise<void>;
  onClose: () => void;
}

/** Rotation: how long the old credential keeps working (now, 1 h, 24 h, 7 days). */
export function GraceDialog({
  title,
  intro,
  question,
  confirmLabel,
  defaultSeconds,
  onConfirm,
  onClose,
}: Props) {
  const [seconds, setSeconds] = useState(defaultSeconds);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          onConfirm(seconds).catch((err: unknown) => {
            setBusy(false);
            setError(err);
          });
        }}
      >
        <p className="dialog-body">{intro}</p>
        <fieldset className="choices">
          <legend className="label">{question}</legend>
          {GRACE_CHOICES.map((c) => (
            <label key={c.seconds} className="choice">
              <input
                type="radio"
                name="grace"
                value={c.seconds}
                checked={seconds === c.seconds}
                onChange={() => setSeconds(c.seconds)}
              />
              {c.label}
            </label>
          ))}
        </fieldset>
        {error !== null && <ErrorBox error={error} />}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Rotating…' : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
