import type { Role } from '../../lib/role.ts';
import type { ListPage, Me, Member } from '../../lib/types.ts';
import type { AsyncState } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { TimeText } from '../../components/time-text.tsx';

interface Props {
  me: Me;
  admin: boolean;
  state: AsyncState<ListPage<Member>>;
  onRetry: () => void;
  /** The roles the signed-in member may give. */
  grantable: readonly Role[];
  onChangeRole: (member: Member, role: Role) => void;
  onRemove: (member: Member) => void;
}

/** The members and their roles; an admin changes the role of, or removes, any member but itself and owners. */
export function MembersCard({ me, admin, state, onRetry, grantable, onChangeRole, onRemove }: Props) {
  const mayManage = (m: Member) =>
    admin && m.id !== me.user.id && (m.role !== 'owner' || me.role === 'owner');

  return (
    <div className="card">
      <AsyncView state={state} onRetry={onRetry} label="members">
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
                          onChange={(e) => onChangeRole(m, e.target.value as Role)}
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
                            onClick={() => onRemove(m)}
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
  );
}
