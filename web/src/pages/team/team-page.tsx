// Settings -> Team (API.md section 11.2): the members and their roles; for admins and owners, inviting
// (the link shown once, with a copy button), changing a role, removing a member (then the credentials it saw
// in clear, and "Rotate all"), and the pending invitations. An admin acts on members other than owners.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { ROLES, roleAllows, useCan, type Role } from '../../lib/role.ts';
import type { Invitation, ListPage, Me, Member } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { ExposedDialog } from './exposed-dialog.tsx';
import { FormerMembersNotice } from './former-members-notice.tsx';
import { InvitationsCard } from './invitations-card.tsx';
import { InviteCard } from './invite-card.tsx';
import { MembersCard } from './members-card.tsx';
import { RemoveMemberDialog } from './remove-member-dialog.tsx';

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
  // Bumped when a removal's dialog closes: the former members' notice reads its list again.
  const [removals, setRemovals] = useState(0);
  // Roles the signed-in member may give: an admin gives any but owner.
  const grantable = ROLES.filter((r) => roleAllows(me.role, 'owner') || r !== 'owner');

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
      <FormerMembersNotice admin={admin} version={removals} />
      <MembersCard
        me={me}
        admin={admin}
        state={members.state}
        onRetry={members.reload}
        grantable={grantable}
        onChangeRole={changeRole}
        onRemove={(m) => setOpen({ remove: m })}
      />

      {admin && (
        <>
          <InviteCard roles={grantable} onInvited={() => invitations.reload()} />
          <InvitationsCard
            me={me}
            state={invitations.state}
            onRetry={invitations.reload}
            onWithdrawn={() => invitations.reload()}
            onError={setActionError}
          />
        </>
      )}

      {open !== null && 'remove' in open && (
        <RemoveMemberDialog
          member={open.remove}
          onClose={() => setOpen(null)}
          onRemoved={() => {
            members.reload();
            setOpen({ exposed: open.remove });
          }}
        />
      )}
      {open !== null && 'exposed' in open && (
        <ExposedDialog
          member={open.exposed}
          onClose={() => {
            setOpen(null);
            setRemovals((n) => n + 1);
          }}
        />
      )}
    </section>
  );
}
