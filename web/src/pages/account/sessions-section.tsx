// The signed-in user's sessions (API.md section 11.3), each named as a person knows it: its browser and
// system, or its client ("Chrome on Linux", "svc CLI", "curl"), with the raw user agent on hover; where it
// is from and when it was last used; "Sign out" of any of them.
import { useEffect, useState } from 'react';
import { api } from '../../lib/api.ts';
import type { ListPage } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { describeUserAgent } from '../../lib/user-agent.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { TimeText } from '../../components/time-text.tsx';

interface SessionInfo {
  id: string;
  created_at: string;
  last_used_at: string | null;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

export function SessionsSection({ onSignedOut }: { onSignedOut: () => void }) {
  const list = useAsync(() => api<ListPage<SessionInfo>>('GET', '/auth/sessions'), []);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => setError(null), [list.state.status]);
  return (
    <section className="card card-padded stack" aria-labelledby="sessions-title">
      <h3 id="sessions-title" className="card-title">
        Sessions
      </h3>
      <AsyncView state={list.state} onRetry={() => list.reload()} label="your sessions">
        {(page) => (
          <ul className="plain-list account-sessions" aria-label="Your sessions">
            {page.items.map((s) => {
              const name = describeUserAgent(s.user_agent);
              return (
                <li key={s.id} className="account-row">
                  <span>
                    <strong
                      title={s.user_agent ?? 'The client sent no user agent'}
                      data-testid="session-client"
                    >
                      {name}
                    </strong>
                    {s.current && <span className="badge badge-green account-current">This session</span>}
                    <br />
                    <span className="muted small">
                      {s.ip ?? 'unknown address'} · last used{' '}
                      <TimeText value={s.last_used_at ?? s.created_at} />
                    </span>
                  </span>
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={s.current ? 'Sign out of this session' : `Sign out of ${name}`}
                    onClick={() =>
                      void api('DELETE', `/auth/sessions/${s.id}`).then(
                        () => (s.current ? onSignedOut() : list.reload(true)),
                        setError,
                      )
                    }
                  >
                    Sign out
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </AsyncView>
      {error !== null && <ErrorBox error={error} />}
    </section>
  );
}
