import type { KeyPair } from '../../lib/types.ts';
import { useCan } from '../../lib/role.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { TimeText } from '../../components/time-text.tsx';

interface Props {
  keys: KeyPair[];
  /** Key pairs that former members saw and that still work: their emails (the Team tab's notice). */
  seenBy: ReadonlyMap<string, readonly string[]>;
  onRotate: (key: KeyPair) => void;
  onRevoke: (key: KeyPair) => void;
}

export function KeysTable({ keys, seenBy, onRotate, onRevoke }: Props) {
  const canWrite = useCan('developer');
  return (
    <div className="table-wrap">
      <table className="table table-stack">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Publishable key</th>
            <th scope="col">Secret key</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const name = key.name || 'Unnamed key';
            const usable = key.status === 'active';
            return (
              <tr key={key.id} data-key-id={key.id}>
                <td data-label="Name">
                  <div>{name}</div>
                  <div className="muted small">{key.scopes.join(', ')}</div>
                  {seenBy.has(key.id) && (
                    <span
                      className="badge badge-amber"
                      data-testid="seen-by-former-member"
                      title={`Seen in clear by ${seenBy.get(key.id)!.join(', ')}, no longer a member: rotate it`}
                    >
                      Seen by a former member
                    </span>
                  )}
                </td>
                <td data-label="Publishable key">
                  <div className="copy-row">
                    <code className="mono-small truncate" title={key.publishable_key}>
                      {key.publishable_key}
                    </code>
                    <CopyButton value={key.publishable_key} label={`Copy publishable key of ${name}`} />
                  </div>
                </td>
                <td data-label="Secret key">
                  <code className="mono-small">{`${key.mode === 'live' ? 'svc_live_sk_' : 'svc_test_sk_'}••••${key.secret_key_last4}`}</code>
                </td>
                <td data-label="Status">
                  <StatusBadge status={key.status} />
                  {key.status === 'expiring' && key.expires_at && (
                    <div className="muted small">
                      until <TimeText value={key.expires_at} />
                    </div>
                  )}
                </td>
                <td data-label="Created">
                  <TimeText value={key.created_at} />
                </td>
                <td data-label="Last used">
                  <TimeText value={key.last_used_at} />
                </td>
                <td className="cell-actions">
                  {canWrite && usable && (
                    <>
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={`Rotate ${name}`}
                        onClick={() => onRotate(key)}
                      >
                        Rotate
                      </button>
                      <button
                        type="button"
                        className="btn btn-small btn-danger-outline"
                        aria-label={`Revoke ${name}`}
                        onClick={() => onRevoke(key)}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                  {canWrite && key.status === 'expiring' && (
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      aria-label={`Revoke ${name}`}
                      onClick={() => onRevoke(key)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
