const TONES: Record<string, string> = {
  active: 'green',
  enabled: 'green',
  succeeded: 'green',
  expiring: 'amber',
  pending: 'amber',
  retrying: 'amber',
  disabled: 'grey',
  cancelled: 'grey',
  expired: 'grey',
  revoked: 'red',
  failed: 'red',
  failing: 'red',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${TONES[status] ?? 'grey'}`} data-status={status}>
      {status}
    </span>
  );
}
