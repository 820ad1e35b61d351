import type { Webhook } from '../../lib/types.ts';
import { paceWords } from '../../lib/format.ts';
import { EndpointStatus } from '../../components/endpoint-status.tsx';
import { HealthText } from '../../components/health-text.tsx';
import { LastResponse } from '../../components/last-response.tsx';
import { Link } from '../../components/link.tsx';
import { TimeText } from '../../components/time-text.tsx';

/** The endpoint's status, health of the last 24 hours, pace, and settings. */
export function WebhookDetailsCard({ webhook: wh }: { webhook: Webhook }) {
  return (
    <div className="card card-padded">
      <h3 className="card-title">Details</h3>
      <dl className="props">
        <dt>Status</dt>
        <dd>
          <EndpointStatus webhook={wh} />
          {wh.disabled_reason && <div className="muted small">{wh.disabled_reason}</div>}
        </dd>
        <dt>Last 24 hours</dt>
        <dd>
          <HealthText health={wh.health} />
        </dd>
        <dt>Last attempt</dt>
        <dd>
          <LastResponse health={wh.health} none="none yet" />
        </dd>
        <dt>Pace</dt>
        <dd data-testid="pace">{paceWords(wh.health)}</dd>
        <dt>Payload filter</dt>
        <dd>
          {wh.filter ? (
            <pre className="code-block" tabIndex={0} data-testid="webhook-filter">
              {JSON.stringify(wh.filter, null, 2)}
            </pre>
          ) : (
            'none: every event of the subscribed types'
          )}
          {(wh.health.filtered_24h ?? 0) > 0 && (
            <div className="muted small">
              {wh.health.filtered_24h} event{wh.health.filtered_24h === 1 ? '' : 's'} filtered out in the last
              24 hours
            </div>
          )}
        </dd>
        <dt>Ordering</dt>
        <dd>{wh.ordering === 'per_object' ? 'per object' : 'none'}</dd>
        <dt>URL</dt>
        <dd className="break">
          <code>{wh.url}</code>
        </dd>
        {wh.app_id && (
          <>
            <dt>App</dt>
            <dd>
              <Link to={`/settings/developers/apps/${encodeURIComponent(wh.app_id)}`}>
                <code>{wh.app_id}</code>
              </Link>
              <div className="muted small">
                Receives these events from every store that installed the app.
              </div>
            </dd>
          </>
        )}
        {wh.description && (
          <>
            <dt>Description</dt>
            <dd>{wh.description}</dd>
          </>
        )}
        <dt>ID</dt>
        <dd>
          <code>{wh.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <TimeText value={wh.created_at} />
        </dd>
        <dt>Events</dt>
        <dd>
          <ul className="tag-list" aria-label="Subscribed events">
            {wh.events.map((e) => (
              <li key={e}>
                <code>{e}</code>
              </li>
            ))}
          </ul>
        </dd>
      </dl>
    </div>
  );
}
