// Every operation of the public document by "METHOD path": a stable camelCase operationId (what generated
// clients name their methods), a one-line summary, an optional description, and its area. One table, so that
// names stay consistent across modules and a route without an entry fails the OpenAPI test.
export type Tag =
  | 'OAuth apps'
  | 'OAuth protocol'
  | 'Credentials'
  | 'Webhooks'
  | 'Events'
  | 'Logs'
  | 'Public'
  | 'Merchant account'
  | 'Internal'
  | 'Health';

export interface OperationDoc {
  id: string;
  summary: string;
  tag: Tag;
  description?: string;
}

const M = '/api/v1/merchant';
const P = '/api/public/v1';

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /api/openapi.json': { id: 'getOpenApiDocument', summary: 'This OpenAPI document', tag: 'Health' },
  'GET /guides/{name}': {
    id: 'getGuide',
    summary: 'An integrator guide, as Markdown',
    tag: 'Health',
    description: 'quickstart.md, oauth-apps.md, api-keys.md or platform-services.md.',
  },
  'GET /healthz': { id: 'getHealth', summary: 'Whether the process is up', tag: 'Health' },
  'GET /readyz': {
    id: 'getReadiness',
    summary: 'Whether the database answers and accepts writes',
    tag: 'Health',
  },

  [`POST ${M}/auth/signup`]: {
    id: 'signUp',
    summary: 'Create a merchant account and sign in',
    tag: 'Merchant account',
    description: 'Creates the merchant, its owner user and a first store. Off when SVC_SIGNUP=off (404).',
  },
  [`POST ${M}/auth/login`]: {
    id: 'logIn',
    summary: 'Sign in',
    tag: 'Merchant account',
    description: 'Answers a session token and sets the svc_session cookie.',
  },
  [`POST ${M}/auth/logout`]: { id: 'logOut', summary: 'End the session', tag: 'Merchant account' },
  [`GET ${M}/me`]: {
    id: 'getMe',
    summary: 'The signed-in user, merchant and stores',
    tag: 'Merchant account',
  },

  [`GET ${M}/developer/logs`]: { id: 'listLogs', summary: 'List audit log entries', tag: 'Logs' },
  [`GET ${M}/developer/logs/export`]: {
    id: 'exportLogs',
    summary: 'Export the audit log as CSV or JSON Lines',
    tag: 'Logs',
    description: 'The filters of the logs list; streamed, newest first, at most 1,000,000 entries.',
  },

  [`GET ${M}/developer/apps`]: { id: 'listApps', summary: 'List OAuth apps', tag: 'OAuth apps' },
  [`POST ${M}/developer/apps`]: {
    id: 'createApp',
    summary: 'Create an OAuth app',
    tag: 'OAuth apps',
    description: 'The client secret is in this answer only.',
  },
  [`GET ${M}/developer/apps/{appID}`]: { id: 'getApp', summary: 'Get an OAuth app', tag: 'OAuth apps' },
  [`PATCH ${M}/developer/apps/{appID}`]: {
    id: 'updateApp',
    summary: 'Update an OAuth app',
    tag: 'OAuth apps',
    description: 'Narrowing allowed_scopes narrows what existing tokens may do at once.',
  },
  [`DELETE ${M}/developer/apps/{appID}`]: {
    id: 'deleteApp',
    summary: 'Delete an OAuth app',
    tag: 'OAuth apps',
    description: 'Every grant, code and token of the app stops working at once.',
  },
  [`POST ${M}/developer/apps/{appID}/rotate-secret`]: {
    id: 'rotateAppSecret',
    summary: "Rotate an app's client secret",
    tag: 'OAuth apps',
    description: 'Installs survive: grants and tokens stay valid, the app authenticates with the new secret.',
  },
  [`GET ${M}/developer/apps/{appID}/installs`]: {
    id: 'getAppInstalls',
    summary: 'How many stores installed an app',
    tag: 'OAuth apps',
  },
  [`GET ${M}/developer/apps/{appID}/installations`]: {
    id: 'listAppInstallations',
    summary: 'The stores that installed an app',
    tag: 'OAuth apps',
    description:
      'Newest first: each installation (grant) with its store and effective scopes, as app deliveries name them.',
  },
  [`GET ${M}/developer/connections`]: {
    id: 'listConnections',
    summary: 'List the apps installed on this account',
    tag: 'OAuth apps',
  },
  [`DELETE ${M}/developer/connections/{grantID}`]: {
    id: 'deleteConnection',
    summary: 'Disconnect an installed app',
    tag: 'OAuth apps',
    description: 'Revokes every token of the grant at once.',
  },

  [`POST ${M}/api-keys`]: {
    id: 'createKeyPair',
    summary: 'Create a key pair',
    tag: 'Credentials',
    description: 'The secret key is in this answer only.',
  },
  [`GET ${M}/api-keys`]: { id: 'listKeyPairs', summary: 'List key pairs', tag: 'Credentials' },
  [`POST ${M}/api-keys/{keyID}/rotate`]: {
    id: 'rotateKeyPair',
    summary: 'Rotate a key pair',
    tag: 'Credentials',
    description: 'A new pair; the old one keeps working until the chosen expiry.',
  },
  [`POST ${M}/api-keys/{keyID}/revoke`]: {
    id: 'revokeKeyPair',
    summary: 'Revoke a key pair',
    tag: 'Credentials',
  },

  [`GET ${M}/webhooks/events`]: { id: 'listEventTypes', summary: 'The event catalog', tag: 'Webhooks' },
  [`POST ${M}/webhooks`]: {
    id: 'createWebhook',
    summary: 'Create a webhook endpoint',
    tag: 'Webhooks',
    description:
      'The signing secret is in this answer (and can be revealed again with the password). With `app_id`, an ' +
      "app webhook: it receives the events of every merchant that installed the app, with the installation's " +
      '`app_id`, `grant_id` and `store_id` in each body.',
  },
  [`GET ${M}/webhooks`]: {
    id: 'listWebhooks',
    summary: 'List webhook endpoints',
    tag: 'Webhooks',
    description: "`app_id` lists one app's webhooks.",
  },
  [`GET ${M}/webhooks/{webhookID}`]: { id: 'getWebhook', summary: 'Get a webhook endpoint', tag: 'Webhooks' },
  [`PATCH ${M}/webhooks/{webhookID}`]: {
    id: 'updateWebhook',
    summary: 'Update a webhook endpoint',
    tag: 'Webhooks',
  },
  [`DELETE ${M}/webhooks/{webhookID}`]: {
    id: 'deleteWebhook',
    summary: 'Delete a webhook endpoint',
    tag: 'Webhooks',
    description: 'Its pending deliveries are cancelled.',
  },
  [`POST ${M}/webhooks/{webhookID}/enable`]: {
    id: 'enableWebhook',
    summary: 'Enable a webhook endpoint',
    tag: 'Webhooks',
  },
  [`POST ${M}/webhooks/{webhookID}/disable`]: {
    id: 'disableWebhook',
    summary: 'Disable a webhook endpoint',
    tag: 'Webhooks',
  },
  [`POST ${M}/webhooks/{webhookID}/rotate-secret`]: {
    id: 'rotateWebhookSecret',
    summary: "Rotate an endpoint's signing secret",
    tag: 'Webhooks',
    description: 'During the overlap every delivery carries both signatures.',
  },
  [`POST ${M}/webhooks/{webhookID}/reveal-secret`]: {
    id: 'revealWebhookSecret',
    summary: 'Show the signing secret again',
    tag: 'Webhooks',
    description: "Re-enter the signed-in user's password. Audited.",
  },
  [`POST ${M}/webhooks/{webhookID}/test`]: {
    id: 'testWebhook',
    summary: 'Send a test event now',
    tag: 'Webhooks',
    description: 'Answers with the delivery after its first attempt.',
  },
  [`POST ${M}/webhooks/{webhookID}/recover`]: {
    id: 'recoverWebhookDeliveries',
    summary: 'Send again every failed delivery since a time',
    tag: 'Webhooks',
    description: 'With preview, only counts. Idempotent; at most 10,000 per call.',
  },
  [`GET ${M}/webhooks/{webhookID}/deliveries`]: {
    id: 'listDeliveries',
    summary: "List an endpoint's deliveries",
    tag: 'Webhooks',
  },
  [`GET ${M}/webhooks/{webhookID}/deliveries/{deliveryID}`]: {
    id: 'getDelivery',
    summary: 'Get a delivery with its attempts',
    tag: 'Webhooks',
  },
  [`POST ${M}/webhooks/{webhookID}/deliveries/{deliveryID}/retry`]: {
    id: 'retryDelivery',
    summary: 'Retry a delivery now',
    tag: 'Webhooks',
  },

  [`GET ${M}/webhooks/listen`]: {
    id: 'listenToEvents',
    summary: "Stream the account's test-mode events, signed (svc listen)",
    tag: 'Webhooks',
    description:
      'Server-Sent Events, test mode only (live: 403). First `secret` (the whsec_ secret of this session), then one `webhook` event per recorded event with the exact body and webhook-* headers of a delivery. While open, the stream is a webhook of kind `listener`. Last-Event-ID replays up to one hour. With `app_id`, the events that test-mode app receives from its installations, as its webhooks get them.',
  },
  [`POST ${M}/webhooks/{webhookID}/deliveries/{deliveryID}/report`]: {
    id: 'reportListenerDelivery',
    summary: "Record the local answer to a listener's delivery",
    tag: 'Webhooks',
    description: 'For `svc listen`: the status and duration of the local endpoint become the attempt.',
  },

  [`GET ${M}/events`]: { id: 'listEvents', summary: "List the account's events", tag: 'Events' },
  [`POST ${M}/events/trigger`]: {
    id: 'triggerEvent',
    summary: 'Trigger a test event',
    tag: 'Events',
    description:
      'Test mode only (live: 403 forbidden). Records a real event of the type with its example data, `data` ' +
      'merged over it field by field; every subscribed test webhook and every listener receives it.',
  },
  [`GET ${M}/events/{eventID}`]: {
    id: 'getEvent',
    summary: 'Get an event and its deliveries',
    tag: 'Events',
  },
  [`POST ${M}/events/{eventID}/resend`]: {
    id: 'resendEvent',
    summary: 'Send an event again to one endpoint',
    tag: 'Events',
  },

  [`POST ${P}/stores/{storeID}/cart`]: { id: 'createCart', summary: 'Create a cart', tag: 'Public' },
  [`GET ${P}/stores`]: {
    id: 'listStores',
    summary: 'The stores the credential may act on',
    tag: 'Public',
    description: 'Any credential kind: an installed app learns its store here (or from the token response).',
  },
  [`GET ${P}/payments/supported-countries`]: {
    id: 'listSupportedCountries',
    summary: 'List supported countries',
    tag: 'Public',
  },

  'GET /.well-known/oauth-authorization-server': {
    id: 'getAuthorizationServerMetadata',
    summary: 'Authorization server metadata (RFC 8414)',
    tag: 'OAuth protocol',
  },
  'GET /.well-known/openid-configuration': {
    id: 'getOpenIdConfiguration',
    summary: 'The same metadata, where common clients look first',
    tag: 'OAuth protocol',
  },
  [`GET ${P}/oauth/authorize`]: {
    id: 'authorize',
    summary: 'Start an install: sign-in and consent (RFC 6749 4.1.1)',
    tag: 'OAuth protocol',
    description:
      'A browser page. S256 PKCE is required. Ask with `Accept: application/json` for the consent as data.',
  },
  [`POST ${P}/oauth/authorize/login`]: {
    id: 'signInToAuthorize',
    summary: 'The sign-in form of the authorize page',
    tag: 'OAuth protocol',
    description: 'A form post from the authorize page itself, answered with that page; not for API clients.',
  },
  [`POST ${P}/oauth/authorize/consent`]: {
    id: 'submitConsent',
    summary: 'Approve or deny a consent',
    tag: 'OAuth protocol',
  },
  [`POST ${P}/oauth/token`]: {
    id: 'requestToken',
    summary: 'Exchange a code or a refresh token for tokens (RFC 6749)',
    tag: 'OAuth protocol',
  },
  [`POST ${P}/oauth/revoke`]: {
    id: 'revokeToken',
    summary: 'Revoke an access or refresh token (RFC 7009)',
    tag: 'OAuth protocol',
    description: 'Answers 200 with `{}` whether or not the token existed.',
  },
  [`POST ${P}/oauth/introspect`]: {
    id: 'introspectToken',
    summary: 'Whether a credential is active, and what it opens (RFC 7662)',
    tag: 'OAuth protocol',
    description:
      'An OAuth client (client authentication as at the token endpoint) may ask about its own access tokens; ' +
      'a platform service with the internal token about any secret key, publishable key or access token. ' +
      'Anything else answers `{"active":false}`.',
  },

  'POST /internal/v1/events': {
    id: 'ingestEvent',
    summary: 'Record an event of the platform and deliver it',
    tag: 'Internal',
    description: 'For the rest of the platform, with the internal token. Idempotent by event id.',
  },
};

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');
