// The authorization endpoint and the consent (RFC 6749 4.1.1-4.1.2, RFC 7636, RFC 9207, API.md section 5): our
// own pages (sign-in, consent, errors), the consent's decision and the code it issues. Consents, grants and
// codes are the oauth module's: the decision writes them through that module's index.ts, in one transaction.
import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import { authorizeRoutes } from './authorize.routes.ts';
import type { AuthorizeState } from './authorize.state.ts';

export type OauthAuthorizeDeps = AuthorizeState;

export function createOauthAuthorize(_ctx: Context, deps: OauthAuthorizeDeps): Module {
  return { name: 'oauth-authorize', routes: authorizeRoutes(deps) };
}
