import type { Attempt } from '../../lib/types.ts';
import { StatusBadge } from '../../components/status-badge.tsx';
import { TimeText } from '../../components/time-text.tsx';

const EXCERPT = 2000;

function HeadersTable({ headers, label }: { headers: Record<string, string>; label: string }) {
  return (
    <table className="headers-table" aria-label={label}>
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One attempt: outcome, HTTP status, duration, and what the endpoint said (or why it could not be reached). */
export function AttemptResult({ attempt, status }: { attempt: Attempt; status?: string }) {
  const ok =
    attempt.response_status !== null && attempt.response_status >= 200 && attempt.response_status < 300;
  const body = attempt.response_body ?? '';
  return (
    <div className="attempt">
      <div className="attempt-head">
        <StatusBadge status={status ?? (ok ? 'succeeded' : 'failed')} />
        <span>
          Attempt {attempt.number} · <TimeText value={attempt.started_at} />
        </span>
      </div>
      <dl className="props props-compact">
        <dt>Response status</dt>
        <dd>{attempt.response_status ?? <span className="muted">no response</span>}</dd>
        <dt>Duration</dt>
        <dd>{attempt.duration_ms === null ? '—' : `${attempt.duration_ms} ms`}</dd>
        {attempt.error && (
          <>
            <dt>Error</dt>
            <dd className="text-danger">{attempt.error}</dd>
          </>
        )}
      </dl>
      {attempt.request_headers && (
        <details className="response-body">
          <summary>Request headers</summary>
          <HeadersTable
            headers={attempt.request_headers}
            label={`Request headers of attempt ${attempt.number}`}
          />
        </details>
      )}
      {attempt.response_headers && (
        <details className="response-body">
          <summary>Response headers</summary>
          <HeadersTable
            headers={attempt.response_headers}
            label={`Response headers of attempt ${attempt.number}`}
          />
        </details>
      )}
      <details className="response-body" open={body.length > 0 && body.length < 400}>
        <summary>Response body</summary>
        <pre className="code-block" tabIndex={0}>
          {body ? (body.length > EXCERPT ? `${body.slice(0, EXCERPT)}…` : body) : '(empty)'}
        </pre>
      </details>
    </div>
  );
}
