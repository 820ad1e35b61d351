import { api } from '../../lib/api.ts';
import type { Invitation, ListPage, Me } from '../../lib/types.ts';
import type { AsyncState } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { TimeText } from '../../components/time-text.tsx';

interface Props {
  me: Me;
  state: AsyncState<ListPage<Invitation> | null>;
  onRetry: () => void;
  onWithdrawn: () => void;
  onError: (error: unknown) => void;
}

/** The pending invitations, each withdrawable; only an owner withdraws an owner's invitation. */
export function InvitationsCard({ me, state, onRetry, onWithdrawn, onError }: Props) {
  return (
    <div className="card">
      <div className="card-header">
        <h3 className="card-title">Pending invitations</h3>
      </div>
      <AsyncView state={state} onRetry={onRetry} label="invitations">
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
                              void api('DELETE', `/members/invitations/${encodeURIComponent(inv.id)}`).then(
                                () => onWithdrawn(),
                                onError,
                              );
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
  );
}
