// Settings -> Team (API.md section 11.2): the members and their roles; for admins and owners, inviting
// (the link shown once, with a copy button), changing a role, removing a member (then the credentials it saw
// in clear, and "Rotate all"), and the pending invitations. An admin acts on members other than owners.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { ROLES, roleAllows, useCan, type Role } from '../../lib/role.ts';
import type { Invitation, ListPage, Me, Member } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { ExposedDialog } from './exposed-dialog.tsx';
import { InviteCard } from './invite-card.tsx';

type Open = null | { remove: Member } | { exposed: Member };

export function TeamPage({ me }: { me: Me }) {
  const admin = useCan('admin');
  const members = useAsync(() => api<ListPage<Member>>('GET', '/members'), []);
  const invitations = useAsync(
    () => (admin ? api<ListPage<Invitation>>('GET', '/members/invitations') : Promise.resolve(null)),
    [admin],
  );
  const [open, setOpen] = useState<Open>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  // Roles the signed-in member may give: an admin gives any but owner.
  const grantable = ROLES.filter((r) => roleAllows(me.role, 'owner') || r !== 'owner');
  const mayManage = (m: Member) =>
    admin && m.id !== me.user.id && (m.role !== 'owner' || me.role === 'owner');

  const changeRole = (member: Member, role: Role) => {
    setActionError(null);
    api<Member>('PATCH', `/members/${encodeURIComponent(member.id)}`, { role }).then(
      () => members.reload(),
      setActionError,
    );
  };

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Members"
        description={
          admin
            ? 'Everyone who can sign in to this merchant, and what each may do.'
            : 'Everyone who can sign in to this merchant. Admins and owners manage the team.'
        }
      />
      {actionError !== null && <ErrorBox error={actionError} />}
      <div className="card">
        <AsyncView state={members.state} onRetry={members.reload} label="members">
          {(page) => (
            <div className="table-wrap">
              <table className="table table-stack">
                <thead>
                  <tr>
                    <th scope="col">Member</th>
                    <th scope="col">Role</th>
                    <th scope="col">Joined</th>
                    <th scope="col">Last active</th>
                    {admin && (
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((m) => (
                    <tr key={m.id}>
                      <td data-label="Member">
                        <div>{m.email}</div>
                        {m.name && <div className="small muted">{m.name}</div>}
                      </td>
                      <td data-label="Role">
                        {mayManage(m) ? (
                          <select
                            className="input input-small"
                            aria-label={`Role of ${m.email}`}
                            value={m.role}
                            onChange={(e) => changeRole(m, e.target.value as Role)}
                          >
                            {grantable.map((r) => (
                              <option key={r} value={r}>
                                {r}
                              </option>
                            ))}
                          </select>
                        ) : (
                          <>
                            {m.role}
                            {m.id === me.user.id && <span className="muted"> (you)</span>}
                          </>
                        )}
                      </td>
                      <td data-label="Joined">
                        <TimeText value={m.joined_at} />
                      </td>
                      <td data-label="Last active">
                        {m.last_active_at ? (
                          <TimeText value={m.last_active_at} />
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      {admin && (
                        <td className="cell-actions">
                          {mayManage(m) && (
                            <button
                              type="button"
                              className="btn btn-small btn-danger-outline"
                              aria-label={`Remove ${m.email}`}
                              onClick={() => setOpen({ remove: m })}
                            >
                              Remove
                            </button>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </AsyncView>
      </div>

      {admin && (
        <>
          <InviteCard roles={grantable} onInvited={() => invitations.reload()} />
          <div className="card">
            <div className="card-header">
              <h3 className="card-title">Pending invitations</h3>
            </div>
            <AsyncView state={invitations.state} onRetry={invitations.reload} label="invitations">
              {(list) =>
                !list || list.items.length === 0 ? (
                  <p className="card-padded muted">No pending invitation.</p>
                ) : (
                  <div className="table-wrap">
                    <table className="table table-stack">
                      <thead>
                        <tr>
                          <th scope="col">Email</th>
                          <th scope="col">Role</th>
                          <th scope="col">Expires</th>
                          <th scope="col">
                            <span className="sr-only">Actions</span>
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {list.items.map((inv) => (
                          <tr key={inv.id}>
                            <td data-label="Email">{inv.email}</td>
                            <td data-label="Role">{inv.role}</td>
                            <td data-label="Expires">
                              <TimeText value={inv.expires_at} />
                            </td>
                            <td className="cell-actions">
                              {(inv.role !== 'owner' || me.role === 'owner') && (
                                <button
                                  type="button"
                                  className="btn btn-small"
                                  aria-label={`Withdraw the invitation of ${inv.email}`}
                                  onClick={() => {
                                    void api(
                                      'DELETE',
                                      `/members/invitations/${encodeURIComponent(inv.id)}`,
                                    ).then(() => invitations.reload(), setActionError);
                                  }}
                                >
                                  Withdraw
                                </button>
                              )}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )
              }
            </AsyncView>
          </div>
        </>
      )}

      {open !== null && 'remove' in open && (
        <ConfirmDialog
          title="Remove member"
          confirmLabel="Remove member"
          onClose={() => setOpen(null)}
          onConfirm={async () => {
            await api('DELETE', `/members/${encodeURIComponent(open.remove.id)}`);
            members.reload();
            setOpen({ exposed: open.remove });
          }}
        >
          <p>
            <strong>{open.remove.email}</strong> loses access to this merchant now: its sessions end at once.
            Next, the credentials it saw in clear are listed, to rotate.
          </p>
        </ConfirmDialog>
      )}
      {open !== null && 'exposed' in open && (
        <ExposedDialog member={open.exposed} onClose={() => setOpen(null)} />
      )}
    </section>
  );
}
