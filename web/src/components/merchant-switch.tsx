import { useState } from 'react';
import { api } from '../lib/api.ts';
import type { Me } from '../lib/types.ts';

/** A member of several merchants opens another (POST /auth/switch): a new session, of that membership. */
export function MerchantSwitch({ me, onSwitched }: { me: Me; onSwitched: (me: Me) => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <label className="merchant-name">
      <span className="sr-only">Merchant</span>
      <select
        className="input input-small"
        value={me.merchant.id}
        disabled={busy}
        title={me.user.email}
        onChange={(e) => {
          setBusy(true);
          // A failed switch leaves the current merchant open, and the select showing it.
          void api('POST', '/auth/switch', { merchant_id: e.target.value })
            .then(() => api<Me>('GET', '/me'))
            .then(onSwitched, () => undefined)
            .finally(() => setBusy(false));
        }}
      >
        {me.memberships.map((m) => (
          <option key={m.merchant.id} value={m.merchant.id}>
            {m.merchant.name} ({m.role})
          </option>
        ))}
      </select>
    </label>
  );
}
