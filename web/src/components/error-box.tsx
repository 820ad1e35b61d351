import { ApiError } from '../lib/api.ts';
import { Link } from './link.tsx';

/** An API error as a person needs it: what went wrong, and the request id to quote to support. */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const api = error instanceof ApiError ? error : null;
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <div className="error-box" role="alert">
      <p className="error-message">{message}</p>
      {api && api.details.length > 0 && (
        <ul className="error-details">
          {api.details.map((d) => (
            <li key={`${d.field}:${d.issue}`}>
              <code>{d.field}</code> {d.issue}
            </li>
          ))}
        </ul>
      )}
      {api?.requestId && (
        <p className="error-meta">
          Request ID{' '}
          <Link
            to={`/settings/developers/requests/${encodeURIComponent(api.requestId)}`}
            title="Open in Requests"
          >
            <code>{api.requestId}</code>
          </Link>
          {api.code ? (
            <>
              {' '}
              · code <code>{api.code}</code>
            </>
          ) : null}
        </p>
      )}
      {onRetry && (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
