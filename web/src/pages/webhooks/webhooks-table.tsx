// Webhook endpoints as a table: the Webhooks tab lists the account's, an app's page lists the app's (the
// same rows, health and links), so a developer reads an app webhook exactly as its own.
import type { Webhook } from '../../lib/types.ts';
import { Link } from '../../components/link.tsx';
import { EndpointStatus } from '../../components/endpoint-status.tsx';
import { HealthText } from '../../components/health-text.tsx';
import { LastResponse } from '../../components/last-response.tsx';

export function WebhooksTable({ items, label }: { items: Webhook[]; label?: string }) {
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
                <Link to={`/settings/developers/webhooks/${wh.id}`} className="break">
                  {wh.url}
                </Link>
                {wh.description && <div className="muted small">{wh.description}</div>}
                {wh.app_id && (
                  <div className="muted small">App webhook: the stores that installed the app</div>
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
