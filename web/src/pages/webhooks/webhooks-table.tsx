// Webhook endpoints as a table: the Webhooks tab lists the account's, an app's page lists the app's (the
// same rows, health and links), so a developer reads an app webhook exactly as its own. Each row says what it
// is: an app webhook names its app (read once for the table, only when a row has one); a listener of `svc
// listen` reads as a listener and names where it forwards, not as the placeholder URL it is stored with.
import type { App, ListPage, Webhook } from '../../lib/types.ts';
import { api } from '../../lib/api.ts';
import { useAsync } from '../../lib/use-async.ts';
import { Link } from '../../components/link.tsx';
import { EndpointStatus } from '../../components/endpoint-status.tsx';
import { HealthText } from '../../components/health-text.tsx';
import { LastResponse } from '../../components/last-response.tsx';

// The URL a listener is stored with when it forwards nowhere (src/modules/dev-loop/listen.service.ts).
const LISTENER_URL = 'svc-listen:';

function useAppNames(items: Webhook[]): Map<string, string> {
  const wanted = items.some((wh) => wh.app_id !== null);
  const apps = useAsync(
    () =>
      wanted
        ? api<ListPage<App>>('GET', '/developer/apps?limit=200').catch(() => null)
        : Promise.resolve(null),
    [wanted],
  );
  return new Map((apps.state.data?.items ?? []).map((a) => [a.id, a.name]));
}

function EndpointName({ wh }: { wh: Webhook }) {
  const to = `/settings/developers/webhooks/${wh.id}`;
  if (wh.kind !== 'listener') {
    return (
      <Link to={to} className="break">
        {wh.url}
      </Link>
    );
  }
  return (
    <>
      <Link to={to}>Listener (svc listen)</Link>
      <div className="muted small break">
        {wh.url === LISTENER_URL ? 'Streams events to the terminal' : <>Forwards to {wh.url}</>}
      </div>
    </>
  );
}

export function WebhooksTable({ items, label }: { items: Webhook[]; label?: string }) {
  const appNames = useAppNames(items);
  return (
    <div className="table-wrap">
      <table className="table table-stack" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Status</th>
            <th scope="col">Last 24 hours</th>
            <th scope="col">Last response</th>
            <th scope="col">Events</th>
          </tr>
        </thead>
        <tbody>
          {items.map((wh) => (
            <tr key={wh.id}>
              <td>
                <EndpointName wh={wh} />
                {wh.description && <div className="muted small">{wh.description}</div>}
                {wh.app_id && (
                  <div className="muted small webhook-app" data-testid="webhook-app">
                    App webhook of{' '}
                    <Link to={`/settings/developers/apps/${wh.app_id}`}>
                      {appNames.get(wh.app_id) ?? wh.app_id}
                    </Link>
                    : the stores that installed it
                  </div>
                )}
              </td>
              <td data-label="Status">
                <EndpointStatus webhook={wh} />
              </td>
              <td data-label="Last 24 hours">
                <HealthText health={wh.health} />
              </td>
              <td data-label="Last response">
                <LastResponse health={wh.health} />
              </td>
              <td data-label="Events">
                {wh.events.length} event{wh.events.length === 1 ? '' : 's'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
