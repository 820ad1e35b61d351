import { useCan } from '../lib/role.ts';
import type { Route } from '../lib/router.ts';
import type { Me } from '../lib/types.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { Link } from '../components/link.tsx';
import { AppsPage } from './apps/apps-page.tsx';
import { AppCreatePage } from './apps/app-create-page.tsx';
import { AppDetailPage } from './apps/app-detail-page.tsx';
import { ConnectionsPage } from './apps/connections-page.tsx';
import { KeysPage } from './keys/keys-page.tsx';
import { WebhooksPage } from './webhooks/webhooks-page.tsx';
import { WebhookCreatePage } from './webhooks/webhook-create-page.tsx';
import { WebhookDetailPage } from './webhooks/webhook-detail-page.tsx';
import { DeliveryPage } from './webhooks/delivery-page.tsx';
import { LogsPage } from './logs/logs-page.tsx';
import { RequestsPage } from './requests/requests-page.tsx';
import { RequestPage } from './requests/request-page.tsx';
import { EventsPage } from './events/events-page.tsx';
import { AttemptsPage } from './webhooks/attempts-page.tsx';
import { EventPage } from './events/event-page.tsx';

export function View({ route, me }: { route: Route; me: Me }) {
  const canWrite = useCan('developer');
  if (!canWrite && (route.name === 'app-new' || route.name === 'webhook-new')) {
    return (
      <EmptyState title="Your role may not create this.">
        A {me.role} reads everything here; a developer, admin or owner of the team makes changes.
      </EmptyState>
    );
  }
  switch (route.name) {
    case 'apps':
      return <AppsPage />;
    case 'app-new':
      return <AppCreatePage />;
    case 'app':
      return <AppDetailPage id={route.id} />;
    case 'connections':
      return <ConnectionsPage />;
    case 'keys':
      return <KeysPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'webhook-new':
      return <WebhookCreatePage />;
    case 'attempts':
      return <AttemptsPage />;
    case 'webhook':
      return <WebhookDetailPage id={route.id} />;
    case 'delivery':
      return <DeliveryPage webhookId={route.webhookId} id={route.id} />;
    case 'events':
      return <EventsPage />;
    case 'event':
      return <EventPage id={route.id} />;
    case 'logs':
      return <LogsPage me={me} />;
    case 'requests':
      return <RequestsPage />;
    case 'request':
      return <RequestPage id={route.id} />;
    case 'home':
    case 'signin':
    case 'signup':
    case 'join':
    case 'team':
    case 'account':
      return null;
    case 'not-found':
      return (
        <EmptyState title="This page does not exist.">
          <Link to="/settings/developers/apps">Go to OAuth Apps</Link>
        </EmptyState>
      );
  }
}
