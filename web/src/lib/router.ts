// A small history router: every view has its own URL under /dashboard, and the back button works.
import { useSyncExternalStore } from 'react';

export const BASE = '/dashboard';
export const DEV = '/settings/developers';

export type Route =
  | { name: 'signin' }
  | { name: 'signup' }
  | { name: 'join' }
  | { name: 'team' }
  | { name: 'apps' }
  | { name: 'app-new' }
  | { name: 'app'; id: string }
  | { name: 'connections' }
  | { name: 'keys' }
  | { name: 'webhooks' }
  | { name: 'webhook-new' }
  | { name: 'attempts' }
  | { name: 'webhook'; id: string }
  | { name: 'delivery'; webhookId: string; id: string }
  | { name: 'events' }
  | { name: 'event'; id: string }
  | { name: 'logs' }
  | { name: 'requests' }
  | { name: 'request'; id: string }
  | { name: 'account' }
  | { name: 'home' }
  | { name: 'not-found' };

export type Tab = 'apps' | 'keys' | 'webhooks' | 'events' | 'logs' | 'requests';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + to;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.scrollTo(0, 0);
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const getPath = () => location.pathname;
const getSearch = () => location.search;

export function usePath(): string {
  return useSyncExternalStore(subscribe, getPath);
}

/** The query string of the current URL: views keep their filters there, so a filtered view can be shared. */
export function useSearch(): URLSearchParams {
  return new URLSearchParams(useSyncExternalStore(subscribe, getSearch));
}

export function parse(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '');
  if (path !== BASE && !path.startsWith(`${BASE}/`)) return { name: 'not-found' };
  const parts = path
    .slice(BASE.length)
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  if (parts.length === 0) return { name: 'home' };
  if (parts[0] === 'signin' && parts.length === 1) return { name: 'signin' };
  if (parts[0] === 'signup' && parts.length === 1) return { name: 'signup' };
  if (parts[0] === 'join' && parts.length === 1) return { name: 'join' };
  if (parts[0] === 'settings' && parts[1] === 'team' && parts.length === 2) return { name: 'team' };
  if (parts[0] === 'settings' && parts[1] === 'account' && parts.length === 2) return { name: 'account' };
  if (parts[0] !== 'settings' || parts[1] !== 'developers') return { name: 'not-found' };
  const [section, a, b, c] = parts.slice(2);
  switch (section) {
    case undefined:
      return { name: 'home' };
    case 'apps':
      if (a === undefined) return { name: 'apps' };
      if (a === 'new' && b === undefined) return { name: 'app-new' };
      if (b === undefined) return { name: 'app', id: a };
      break;
    case 'connected-apps':
      if (a === undefined) return { name: 'connections' };
      break;
    case 'keys':
      if (a === undefined) return { name: 'keys' };
      break;
    case 'webhooks':
      if (a === undefined) return { name: 'webhooks' };
      if (a === 'new' && b === undefined) return { name: 'webhook-new' };
      if (a === 'attempts' && b === undefined) return { name: 'attempts' };
      if (b === undefined) return { name: 'webhook', id: a };
      if (b === 'deliveries' && c !== undefined && parts.length === 6)
        return { name: 'delivery', webhookId: a, id: c };
      break;
    case 'events':
      if (a === undefined) return { name: 'events' };
      if (b === undefined) return { name: 'event', id: a };
      break;
    case 'logs':
      if (a === undefined) return { name: 'logs' };
      break;
    case 'requests':
      if (a === undefined) return { name: 'requests' };
      if (b === undefined) return { name: 'request', id: a };
      break;
  }
  return { name: 'not-found' };
}

export function tabOf(route: Route): Tab | null {
  switch (route.name) {
    case 'apps':
    case 'app-new':
    case 'app':
    case 'connections':
      return 'apps';
    case 'keys':
      return 'keys';
    case 'webhooks':
    case 'webhook-new':
    case 'attempts':
    case 'webhook':
    case 'delivery':
      return 'webhooks';
    case 'events':
    case 'event':
      return 'events';
    case 'logs':
      return 'logs';
    case 'requests':
    case 'request':
      return 'requests';
    case 'signin':
    case 'signup':
    case 'join':
    case 'team':
    case 'account':
    case 'home':
    case 'not-found':
      return null;
  }
}
