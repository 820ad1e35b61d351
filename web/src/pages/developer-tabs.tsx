import { useEffect, useRef, useState } from 'react';
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

/**
 * The tabs are links (each view has its own URL), so they are a navigation, not an ARIA tablist. On a narrow
 * screen they scroll sideways: the current one is scrolled into view, and while tabs lie beyond the right
 * edge a fading arrow says so (a hidden scrollbar alone hid the Logs tab at 375 px).
 */
export function DeveloperTabs({ current }: { current: Tab | null }) {
  const nav = useRef<HTMLElement>(null);
  const [more, setMore] = useState(false);

  useEffect(() => {
    const el = nav.current;
    if (!el) return;
    const update = () => setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
    el.querySelector<HTMLElement>('[aria-current="page"]')?.scrollIntoView({
      block: 'nearest',
      inline: 'nearest',
    });
    update();
    el.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      el.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, [current]);

  return (
    <div className="tabs-wrap">
      <nav aria-label="Developers" className="tabs" ref={nav}>
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
      {more && (
        <span className="tabs-more" aria-hidden="true" data-testid="tabs-more">
          ›
        </span>
      )}
    </div>
  );
}
