import { useState } from 'react';
import { api } from '../lib/api.ts';

export function SignOutButton({ onSignedOut }: { onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-ghost"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        // Signed out locally whatever the answer: an already-ended session is signed out too.
        void api('POST', '/auth/logout').then(onSignedOut, onSignedOut);
      }}
    >
      Sign out
    </button>
  );
}
