// The authorization server's grants and tokens (API.md sections 3 and 5): the tables of grants, consents, codes,
// token families, tokens and redactions, and all their SQL; the `access_token` resolver and its cache;
// connections and installations with their lifecycle events; the purges; the RFC 8414 metadata. The protocol's
// endpoints are modules of their own over this one: oauth-authorize (authorize and consent), oauth-token (the
// token endpoint and its grants) and oauth-introspect (introspection and revocation).
import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import { accessTokens, resolveAccessToken, type AccessTokens } from './oauth-bearer.service.ts';
import { appInstallationsRoutes } from './app-installations.routes.ts';
import { connectionsRoutes } from './oauth-connections.routes.ts';
import { housekeeping } from './oauth-housekeeping.ts';
import { redactionLoop } from './installations.service.ts';
import { metadataRoutes } from './oauth-metadata.routes.ts';
import type { OauthState } from './oauth.state.ts';
import { verifyDpopProof } from './dpop.service.ts';

export { authorizationServerMetadata } from './oauth-metadata.routes.ts';
export { sweepExpired } from './oauth-housekeeping.ts';
export { insertAppToken, revokeAppToken } from './app-tokens.service.ts';
export { useJti } from './jtis.repository.ts';
export { htuOf, verifyDpopProof, type DpopOutcome } from './dpop.service.ts';
export {
  effectiveScopes,
  recordAllowedScopesChange,
  recordConsent,
  sweepRedactions,
} from './installations.service.ts';
export {
  announceGrantChange,
  announceGrantRevocation,
  forgetGrant,
  noteGrantUse,
  refusedTokenCall,
  type AccessTokens,
  type RefusedTokenCall,
} from './oauth-bearer.service.ts';
// The statements other modules run on these tables, in their own transactions (one owner, docs/architecture.md).
export { findGrantScopes, writeGrant, type GrantWrite, type GrantWritten } from './grants.repository.ts';
export {
  findCode,
  findConsent,
  insertCode,
  insertConsent,
  lockCode,
  takeConsent,
  type CodeRow,
} from './codes.repository.ts';
export {
  bindAccessToken,
  deleteFamily,
  deleteTokens,
  findRefreshWithGrant,
  findToken,
  insertPair,
  lockSiblings,
  lockToken,
  markBranch,
  markRotated,
  setChildren,
  tombstone,
  type NewPair,
  type PairOwner,
  type TokenRow,
} from './tokens.repository.ts';
export {
  issueFromCodes,
  rotateRefresh,
  type IssueInput,
  type Issued,
  type RotateInput,
  type Rotated,
} from './token-statements.repository.ts';

export interface OauthDeps {
  readonly apps: AppsCache;
}

export interface OauthModule extends Module {
  /** The access-token cache and the grants' last uses, which the protocol's endpoints use and evict. */
  readonly tokens: AccessTokens;
}

export function createOauth(ctx: Context, deps: OauthDeps): OauthModule {
  const state: OauthState = { tokens: accessTokens(ctx, deps.apps), apps: deps.apps };
  return {
    name: 'oauth',
    tokens: state.tokens,
    merchantRoutes: connectionsRoutes(state),
    publicRoutes: appInstallationsRoutes(state),
    routes: metadataRoutes,
    credentials: { access_token: (c, token) => resolveAccessToken(c, state.tokens, token) },
    dpop: verifyDpopProof,
    background: [housekeeping(ctx), redactionLoop(ctx)],
    // After HTTP drained and the endpoints' modules stopped (their rotations and exchanges finished): the
    // grants' last uses gathered since the loop's last run reach the database.
    stop: () => state.tokens.uses.stop(),
  };
}
