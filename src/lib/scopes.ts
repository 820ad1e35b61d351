// The three scopes of seed 2.1 as sets of rights: `public:*` is read and write. Requests, grants, the app's
// allowed scopes and what a method needs are compared as rights, so `public:*` and `public:read public:write`
// are the same. The one place that knows what a scope allows: the public auth hook, OpenAPI, OAuth and the
// consent page ask here.
export const SCOPES = ['public:read', 'public:write', 'public:*'] as const;
export type ScopeName = (typeof SCOPES)[number];

type Right = 'read' | 'write';

/**
 * The one scope of an app token (client_credentials, API.md section 12.3): the app's own installations. It
 * grants no right over a store's data, so no store route's check passes it.
 */
export const APP_INSTALLATIONS = 'app:installations';

export function isScope(value: string): value is ScopeName {
  return (SCOPES as readonly string[]).includes(value);
}

export function rights(scopes: readonly string[]): Set<Right> {
  const out = new Set<Right>();
  for (const s of scopes) {
    if (s === 'public:read' || s === 'public:*') out.add('read');
    if (s === 'public:write' || s === 'public:*') out.add('write');
  }
  return out;
}

/** What a public-interface method needs: reading for GET and HEAD, writing for the rest. */
export function neededScope(method: string): 'public:read' | 'public:write' {
  return method === 'GET' || method === 'HEAD' ? 'public:read' : 'public:write';
}

export function scopeAllows(scopes: readonly string[], method: string): boolean {
  return within([neededScope(method)], scopes);
}

export function within(requested: readonly string[], allowed: readonly string[]): boolean {
  const have = rights(allowed);
  return [...rights(requested)].every((r) => have.has(r));
}

/** The scopes of both, as the principal's list (`public:read`, `public:write`). */
export function intersect(a: readonly string[], b: readonly string[]): string[] {
  const rb = rights(b);
  return [...rights(a)].filter((r) => rb.has(r)).map((r) => `public:${r}`);
}

export const splitScopes = (text: string): string[] => text.split(' ').filter(Boolean);
export const joinScopes = (scopes: readonly string[]): string => [...new Set(scopes)].join(' ');
