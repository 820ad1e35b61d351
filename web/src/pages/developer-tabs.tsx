import { Link } from '../components/link.tsx';
import type { Tab } from '../lib/router.ts';

const TABS: { id: Tab; label: string }[] = [
  { id: 'apps', label: 'OAuth Apps' },
  { id: 'keys', label: 'Credentials' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'events', label: 'Events' },
  { id: 'logs', label: 'Logs' },
  { id: 'requests', label: 'Requests' },
];

/** The tabs are links (each view has its own URL), so they are a navigation, not an ARIA tablist. */
export function DeveloperTabs({ current }: { current: Tab | null }) {
  return (
    <nav aria-label="Developers" className="tabs">
      {TABS.map((t) => (
        <Link
          key={t.id}
          to={`/settings/developers/${t.id}`}
          className={t.id === current ? 'tab tab-current' : 'tab'}
          aria-current={t.id === current ? 'page' : undefined}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
