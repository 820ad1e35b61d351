import { api } from '../../lib/api.ts';
import type { Member } from '../../lib/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';

interface Props {
  member: Member;
  onClose: () => void;
  /** Then the credentials the member saw in clear are listed, to rotate. */
  onRemoved: () => void;
}

export function RemoveMemberDialog({ member, onClose, onRemoved }: Props) {
  return (
    <ConfirmDialog
      title="Remove member"
      confirmLabel="Remove member"
      onClose={onClose}
      onConfirm={async () => {
        await api('DELETE', `/members/${encodeURIComponent(member.id)}`);
        onRemoved();
      }}
    >
      <p>
        <strong>{member.email}</strong> loses access to this merchant now: its sessions end at once. Next, the
        credentials it saw in clear are listed, to rotate.
      </p>
    </ConfirmDialog>
  );
}
