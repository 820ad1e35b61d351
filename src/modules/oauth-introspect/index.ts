// Introspection (RFC 7662, API.md section 10) and revocation (RFC 7009): the client-authenticated endpoints
// beside the token endpoint, in the RFC error scope of the oauth-token module, whose client authentication and
// failure limits they share. Introspection answers what the public auth hook would decide, through the
// resolvers every module contributes. Tokens are the oauth module's: a revocation deletes them through it.
import type { Context } from '../../context.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import type { Module } from '../module.ts';
import { introspectRoutes } from './introspect.routes.ts';
import type { IntrospectState } from './introspect.state.ts';

export interface OauthIntrospectDeps extends IntrospectState {
  /** Every module's credential resolvers, as the public interface's bearer check uses them. */
  readonly credentials: CredentialResolvers;
}

export function createOauthIntrospect(_ctx: Context, deps: OauthIntrospectDeps): Module {
  const { credentials, ...state } = deps;
  return { name: 'oauth-introspect', routes: introspectRoutes(state, credentials) };
}
