// The step-up in place (API.md section 11.3): while mounted in the signed-in frame, an action the API answers
// 403 `step_up_required` opens this dialog; a factor given opens the 10-minute window and the action is retried
// (src/lib/api.ts), a dismissal leaves the action's error to its page.
import { useEffect, useState } from 'react';
import { api } from '../lib/api.ts';
import { onStepUp } from '../lib/step-up.ts';
import { Dialog } from './dialog.tsx';
import { FactorForm } from './factor-form.tsx';

export function StepUpHost() {
  const [pending, setPending] = useState<((ok: boolean) => void) | null>(null);

  useEffect(() => onStepUp(() => new Promise<boolean>((resolve) => setPending(() => resolve))), []);

  if (!pending) return null;
  const finish = (ok: boolean) => {
    setPending(null);
    pending(ok);
  };
  return (
    <Dialog title="Confirm it’s you" onClose={() => finish(false)}>
      <p>This action needs your second factor, verified in the last 10 minutes.</p>
      <FactorForm
        submitLabel="Verify"
        passkey={{ path: '/auth/step-up/options' }}
        onFactor={async (factor) => {
          await api('POST', '/auth/step-up', factor);
          finish(true);
        }}
      />
      <button type="button" className="btn btn-ghost btn-block" onClick={() => finish(false)}>
        Cancel
      </button>
    </Dialog>
  );
}
