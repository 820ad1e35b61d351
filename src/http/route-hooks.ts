// What onRoute hooks read and change of a route's options. A hook goes on the routes that need it, added as
// each route is declared, rather than on every request: the read routes, the hot path, then skip it.
import type { RouteOptions } from 'fastify';

type Phase = 'preValidation' | 'onSend' | 'onResponse';

/** Adds `hook` after the route's own hooks of `phase`. */
export function addRouteHook<P extends Phase>(
  route: RouteOptions,
  phase: P,
  hook: NonNullable<RouteOptions[P]>,
): void {
  const asList = (h: unknown): unknown[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);
  (route as Record<Phase, unknown>)[phase] = [...asList(route[phase]), ...asList(hook)];
}

/** The methods a route answers (its options take one or a list). */
export const methodsOf = (route: RouteOptions): string[] =>
  Array.isArray(route.method) ? route.method : [route.method];
