// The team's memory (API.md section 12.4): while a member removed in the last 90 days saw credentials that
// still work, the Team tab says so, names them, and offers the removal dialog's "Rotate all" for each; it goes
// once every such credential is rotated, revoked or expired. The removal dialog's "Later" is no longer final.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import type { FormerMember, ListPage } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { TimeText } from '../../components/time-text.tsx';
import { ExposedDialog } from './exposed-dialog.tsx';

/** "1 former member saw credentials that still work", "2 former members saw ...". */
export const noticeText = (n: number) =>
  `${n} former member${n === 1 ? '' : 's'} saw credentials that still work`;

/** `version` changes after a removal: the list is read again. */
export function FormerMembersNotice({ admin, version }: { admin: boolean; version: number }) {
  const list = useAsync(() => api<ListPage<FormerMember>>('GET', '/former-members'), [version]);
  const [open, setOpen] = useState<FormerMember | null>(null);
  const items = list.state.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section className="warning stack" aria-labelledby="former-members-title" role="status">
      <h2 id="former-members-title" className="section-title">
        {noticeText(items.length)}
      </h2>
      <ul className="plain-list" aria-label="Former members">
        {items.map((f) => (
          <li key={f.id} className="account-row">
            <span>
              <strong>{f.email}</strong>, removed <TimeText value={f.removed_at} />
              {f.removed_by_email && <> by {f.removed_by_email}</>}: {f.exposed_credentials.length} credential
              {f.exposed_credentials.length === 1 ? '' : 's'} still working
            </span>
            {admin && (
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Rotate all that ${f.email} saw`}
                onClick={() => setOpen(f)}
              >
                Rotate all
              </button>
            )}
          </li>
        ))}
      </ul>
      {!admin && <p className="small">An admin or an owner can rotate them.</p>}
      {open && (
        <ExposedDialog
          member={open}
          onClose={() => {
            setOpen(null);
            list.reload(true);
          }}
        />
      )}
    </section>
  );
}
