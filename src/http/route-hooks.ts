// A hook on the routes that need it, added as each route is declared (an onRoute hook), rather than on every
// request: a route without hooks of a phase skips that phase, and the read routes are the hot path.
import type { RouteOptions } from 'fastify';

type Phase = 'preValidation' | 'onSend';

/** Adds `hook` after the route's own hooks of `phase`. */
export function addRouteHook<P extends Phase>(
  route: RouteOptions,
  phase: P,
  hook: NonNullable<RouteOptions[P]>,
): void {
  const asList = (h: unknown): unknown[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);
  (route as Record<Phase, unknown>)[phase] = [...asList(route[phase]), ...asList(hook)];
}
