// How a route authenticates, as the OpenAPI document shows it (openapi.ts). A route of the merchant or public
// interface takes its interface's (a merchant session; a key or access token with the method's scope), and a
// merchant route that needs none says `anonymous`. A root route that authenticates its caller itself (the
// OAuth endpoints) declares it in its options, `config: { security: SECURITY.client }`, beside its handler:
// the document generator knows the interfaces, not the modules' paths. A root route that declares nothing is
// shown open. The OAuth endpoints also name their step of the authorization-code flow (`oauthFlow`), which
// gives the `oauth2` security scheme its URLs.
declare module 'fastify' {
  interface FastifyContextConfig {
    /** A root route's own authentication: OpenAPI security requirements (an empty list: open to anyone). */
    security?: RouteSecurity;
    /** The route is this endpoint of the authorization-code flow that the `oauth2` security scheme describes. */
    oauthFlow?: 'authorization' | 'token';
    /** A public route for an app token (scope app:installations) rather than a store's credential. */
    appToken?: true;
  }
}

/** OpenAPI security requirements: any one of them lets the caller in; `{}` is "no header credential". */
export type RouteSecurity = readonly Readonly<Record<string, readonly string[]>>[];

/** The requirements routes declare, by the schemes of the document's components.securitySchemes. */
export const SECURITY = {
  /** Open to anyone (the page checks what it must itself). */
  none: [],
  /** A merchant session: the bearer token, or the dashboard's cookie. */
  session: [{ merchantSession: [] }, { merchantCookie: [] }],
  /** OAuth client authentication: client_secret_basic, or client_secret_post (the credentials in the body). */
  client: [{ clientSecretBasic: [] }, {}],
  /** A client, as above, or a platform service with the internal token. */
  clientOrInternal: [{ clientSecretBasic: [] }, { internalToken: [] }, {}],
} as const satisfies Record<string, RouteSecurity>;
