// The roles of a merchant's members (API.md section 11.2), and the one check of a route's declared role. Every
// merchant route declares the least role it needs in its options (`config: { role: 'developer' }`), or that it
// needs no session (`config: { anonymous: true }`); the merchant interface refuses to start with a route that
// declares neither. The check runs in the merchant interface's authentication hook, once the session is known
// (merchant-auth.ts), and in the consent step of the OAuth flow, which authenticates the merchant itself: the
// public interface never runs it. The role table per route family is in
// docs/decisions/0121-roles-declared-per-route.md.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../lib/errors.ts';
import { methodsOf } from './route-hooks.ts';

/** From the least to the most: each role may do everything the roles before it may. */
export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role a merchant route needs. */
    role?: Role;
  }
}

const RANK: Readonly<Record<Role, number>> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

export const isRole = (value: unknown): value is Role => typeof value === 'string' && value in RANK;

/** Whether a member of role `has` may do what needs `needs`. */
export const roleAllows = (has: Role, needs: Role): boolean => RANK[has] >= RANK[needs];

/** `developer, admin or owner`: the roles a need lets through, in words. */
export function rolesFrom(needs: Role): string {
  const names = ROLES.slice(RANK[needs]);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
}

const withArticle = (role: Role) => `${role === 'admin' || role === 'owner' ? 'an' : 'a'} ${role}`;

/** 403 `forbidden`, naming the role needed (API.md section 11.2) and the caller's. */
export function forbiddenFor(needs: Role, has: Role): AppError {
  const above = needs === 'owner' ? '' : ' or above';
  return new AppError('forbidden', `This needs the ${needs} role${above}; you are ${withArticle(has)}.`);
}

/** Throws 403 when the signed-in member's role is below the route's declared one. */
export function checkRole(request: FastifyRequest, has: Role): void {
  const needs = request.routeOptions.config.role;
  if (needs !== undefined && !roleAllows(has, needs)) throw forbiddenFor(needs, has);
}

/** A route of the merchant interface must say who may call it: refused at start-up otherwise. */
export function requireDeclaredRole(route: RouteOptions): void {
  const config = route.config as { role?: unknown; anonymous?: unknown } | undefined;
  if (config?.anonymous === true || isRole(config?.role)) return;
  throw new Error(
    `${methodsOf(route).join(',')} ${route.url} declares no role: set config.role (or config.anonymous)`,
  );
}
