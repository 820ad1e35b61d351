// The OpenAPI 3.1 document as a product: generated from the route schemas by @fastify/swagger, then given
// what generation cannot know, in one place:
// - each route's security, from the interface it is under or, for a root route, as it declares it
//   (route-security.ts; its operationId, summary, tags and description are in its own schema, next to the
//   route), the role it needs (`x-svc-role` and a sentence of its description) and its step-up
//   (`x-svc-step-up`, the same); the `oauth2` scheme's URLs from the routes that declare their step of the flow;
// - named component schemas: every schema with a `title` is hoisted to components.schemas and referenced;
// - the shared header parameters (X-Svc-Mode, Idempotency-Key, X-Request-Id) and response headers;
// - every operation's error answers, and optional bodies marked as such;
// - the `webhooks` section: what endpoints receive, per event type (modules/events/event-webhooks.ts).
// /docs renders it with Scalar.
import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import type { Context } from '../context.ts';
import { ERROR_STATUS } from '../lib/errors.ts';
import { APP_INSTALLATIONS, neededScope } from '../lib/scopes.ts';
import { methodsOf } from './route-hooks.ts';
import { rolesFrom, type Role } from './roles.ts';
import { components } from './openapi-components.ts';
import { SECURITY, type RouteSecurity } from './route-security.ts';

type Json = Record<string, unknown>;
type Operation = Json & { parameters?: Json[]; responses?: Record<string, Json>; requestBody?: Json };

const MERCHANT = '/api/v1/merchant';
const PUBLIC = '/api/public/v1';
const INTERNAL = '/internal/';
const GUIDES = '/guides';

/** What onRoute gathers of the routes for the document's finishing, which sees paths only. */
interface Gathered {
  /** The routes whose body may be left out: their requestBody is not required. */
  readonly optionalBodies: Set<string>;
  /** The routes that authenticate their caller themselves (`config.security`): not the public interface's. */
  readonly ownSecurity: Set<string>;
  /** The paths of the authorization-code flow's endpoints (`config.oauthFlow`). */
  readonly oauthFlow: Map<'authorization' | 'token', string>;
}

/** Who may call a route: as it declares, else by its interface; anonymous routes say so with an empty list. */
function securityOf(route: RouteOptions, method: string): RouteSecurity {
  const url = route.url;
  if (url.startsWith(MERCHANT)) return route.config?.anonymous ? SECURITY.none : SECURITY.session;
  if (route.config?.security) return route.config.security;
  if (url.startsWith(PUBLIC)) {
    // An app's own routes take its app token (client_credentials), not a store's credential.
    if (route.config?.appToken) return [{ oauth2: [APP_INSTALLATIONS] }];
    if (route.config?.anonymous) return SECURITY.none;
    return [{ publicBearer: [] }, { oauth2: [neededScope(method)] }];
  }
  // The internal interface: the platform's own services, with the internal token.
  if (url.startsWith(INTERNAL)) return [{ internalToken: [] }];
  return SECURITY.none;
}

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

/** The role a route declares, as the operation shows it: an extension for tools, a sentence for people. */
function describeRole(schema: Json, role: Role): void {
  schema['x-svc-role'] = role;
  const sentence =
    role === 'viewer'
      ? 'Role: viewer, that is any member of the merchant.'
      : `Role: ${role} (${rolesFrom(role)}); a member of a lower role gets 403 forbidden.`;
  const description = typeof schema.description === 'string' ? schema.description : '';
  schema.description = description ? `${description}\n\n${sentence}` : sentence;
}

/** A route's step-up (second-factor.ts), as the operation shows it: an extension and a sentence. */
function describeStepUp(schema: Json, stepUp: 'always' | 'live'): void {
  schema['x-svc-step-up'] = stepUp;
  const when = stepUp === 'live' ? 'In live mode, a' : 'A';
  const sentence =
    `Step-up: ${when} user with a second factor needs one verified in this session in the last 10 minutes ` +
    '(POST /auth/step-up); otherwise 403 step_up_required.';
  schema.description = `${typeof schema.description === 'string' ? schema.description : ''}\n\n${sentence}`;
}

/** onRoute: each route's security and role, before @fastify/swagger reads them; and what `Gathered` holds. */
function describeRoutes(app: FastifyInstance, gathered: Gathered): void {
  app.addHook('onRoute', (route) => {
    // Routes may share one schema object (the two well-known paths): give each its own.
    const schema = (route.schema = { ...route.schema }) as Json;
    if (schema.hide) return;
    if (route.config?.role) describeRole(schema, route.config.role);
    if (route.config?.stepUp) describeStepUp(schema, route.config.stepUp);
    if (route.config?.oauthFlow) gathered.oauthFlow.set(route.config.oauthFlow, openApiPath(route.url));
    const methods = methodsOf(route).filter((m) => m !== 'HEAD');
    for (const method of methods) {
      const key = `${method} ${openApiPath(route.url)}`;
      schema.security = securityOf(route, method);
      if (route.config?.security) gathered.ownSecurity.add(key);
      const body = schema.body as { '~optional'?: boolean } | undefined;
      if (body?.['~optional']) gathered.optionalBodies.add(key);
    }
  });
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Hoists every schema that carries a `title` into components.schemas under that title and replaces it by a
 * reference, depth first; two different schemas under one title are a bug and fail loudly.
 */
function hoistTitled(node: unknown, schemas: Record<string, unknown>, top = true): unknown {
  if (Array.isArray(node)) return node.map((n) => hoistTitled(n, schemas, false));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = hoistTitled(v, schemas, false);
  const title = out.title;
  if (!top && typeof title === 'string' && (out.type !== undefined || out.anyOf || out.oneOf)) {
    const known = schemas[title];
    if (known && JSON.stringify(known) !== JSON.stringify(out)) {
      throw new Error(`two different OpenAPI schemas are titled ${title}`);
    }
    schemas[title] = out;
    return ref(title);
  }
  return out;
}

const SUCCESS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '302': 'Found: a redirect',
  '303': 'See other: a redirect',
};

const ERRORS: Record<string, string> = {
  '400': 'The request is malformed (validation_failed with details, invalid_json, invalid_mode).',
  '401': 'No credential (unauthenticated), or one that is unknown, malformed, revoked or expired.',
  '403': 'The credential may not do this (insufficient_scope, forbidden).',
  '404': 'No such path, or a resource that is not the caller’s.',
  '409': 'A conflict, or an Idempotency-Key reused with another request (idempotency_conflict).',
  '429': 'Too many requests (rate_limited); wait for Retry-After.',
  '500': 'An unexpected error (internal_error); no detail is exposed.',
  '503': 'The database is unreachable (service_unavailable); retry after Retry-After.',
};

function errorResponse(status: string): Json {
  const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } };
  if (status === '429' || status === '503')
    headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
  return {
    description: ERRORS[status],
    headers,
    content: { 'application/json': { schema: ref('ErrorEnvelope') } },
  };
}

/** The answers and headers every operation of a mount shares. */
function finishOperation(path: string, method: string, op: Operation, gathered: Gathered): void {
  const key = `${method.toUpperCase()} ${path}`;
  const merchant = path.startsWith(MERCHANT);
  const publicApi = path.startsWith(PUBLIC) && !gathered.ownSecurity.has(key);
  const secured = Array.isArray(op.security) && op.security.length > 0;

  const params = (op.parameters ??= []);
  params.push({ $ref: '#/components/parameters/XRequestId' });
  if (merchant || publicApi) params.push({ $ref: '#/components/parameters/XSvcMode' });
  const idempotent = method === 'post' && (merchant || publicApi) && !path.startsWith(`${MERCHANT}/auth/`);
  if (idempotent) params.push({ $ref: '#/components/parameters/IdempotencyKey' });

  if (op.requestBody && gathered.optionalBodies.has(key)) op.requestBody.required = false;

  const responses = (op.responses ??= {});
  for (const [status, response] of Object.entries(responses)) {
    if (response.$ref) continue;
    if (response.description === 'Default Response')
      response.description = SUCCESS[status] ?? ERRORS[status] ?? 'Answer';
    const headers = (response.headers ??= {}) as Json;
    headers['X-Request-Id'] = { $ref: '#/components/headers/XRequestId' };
    if (idempotent && status.startsWith('2')) {
      headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
    }
    if (publicApi) {
      headers.RateLimit = { $ref: '#/components/headers/RateLimit' };
      headers['RateLimit-Policy'] = { $ref: '#/components/headers/RateLimitPolicy' };
    }
  }
  // The errors every operation can meet, beside those its route lists.
  const statuses = ['400', '429', '500', '503'];
  if (secured) statuses.push('401');
  if (path.includes('{')) statuses.push('404');
  // A public credential without the scope; a member below the route's role, or a cookie from elsewhere.
  if (publicApi || (merchant && secured)) statuses.push('403');
  if (idempotent) statuses.push('409');
  for (const status of statuses) {
    const existing = responses[status];
    if (!existing || existing.description === 'Default Response') responses[status] = errorResponse(status);
  }
  for (const [status, response] of Object.entries(responses)) {
    if (/^[45]/.test(status) && response.description === 'Default Response')
      responses[status] = errorResponse(status);
  }
}

/** The ErrorEnvelope, with every code of the contract enumerated. */
function errorEnvelope(existing: Json | undefined): Json {
  const envelope = structuredClone(existing ?? {}) as {
    properties?: { error?: { properties?: { code?: Json } } };
  };
  const code = envelope.properties?.error?.properties?.code;
  if (code) {
    code.enum = Object.keys(ERROR_STATUS).sort();
    code.description = 'A machine-readable code; the contract lists what each means.';
  }
  return envelope;
}

/** The `oauth2` scheme's URLs: the endpoints of the authorization-code flow, as their routes declare them. */
function oauthUrls(components: Json | undefined, publicUrl: string, gathered: Gathered): void {
  const flow = (
    components?.securitySchemes as { oauth2?: { flows: { authorizationCode: Json } } } | undefined
  )?.oauth2?.flows.authorizationCode;
  const authorization = gathered.oauthFlow.get('authorization');
  const token = gathered.oauthFlow.get('token');
  if (!flow || authorization === undefined || token === undefined) {
    throw new Error('the oauth2 scheme needs a route with config.oauthFlow authorization and one with token');
  }
  flow.authorizationUrl = `${publicUrl}${authorization}`;
  flow.tokenUrl = `${publicUrl}${token}`;
  flow.refreshUrl = `${publicUrl}${token}`;
  const appFlow = (
    components?.securitySchemes as { oauth2?: { flows: { clientCredentials?: Json } } } | undefined
  )?.oauth2?.flows.clientCredentials;
  if (appFlow) appFlow.tokenUrl = `${publicUrl}${token}`;
}

function finishDocument(doc: Json, webhooks: Json, publicUrl: string, gathered: Gathered): Json {
  const schemas: Record<string, unknown> = {};
  // What endpoints receive, one entry per event type; its titled schemas are hoisted like the routes'.
  const out = hoistTitled({ ...doc, webhooks }, schemas, true) as Json & {
    paths?: Record<string, Record<string, Operation>>;
    components?: Json & { schemas?: Record<string, unknown> };
    webhooks?: Json;
  };
  for (const [path, item] of Object.entries(out.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) finishOperation(path, method, op, gathered);
  }
  oauthUrls(out.components, publicUrl, gathered);
  // Event ids are checked by the services, which name an unknown one: the route schemas say string, and
  // the document lists the catalog's ids, which are the `webhooks` section's keys, so clients can type them.
  if (schemas.EventType) schemas.EventType = { ...(schemas.EventType as Json), enum: Object.keys(webhooks) };
  const existingSchemas = out.components?.schemas ?? {};
  out.components = {
    ...out.components,
    schemas: {
      ...existingSchemas,
      ...schemas,
      ErrorEnvelope: errorEnvelope(existingSchemas.ErrorEnvelope as Json | undefined),
    },
  };
  return out;
}

/** `webhooks`: what endpoints receive, one entry per event type (the events module's). */
export async function registerOpenApi(app: FastifyInstance, ctx: Context, webhooks: Json): Promise<void> {
  const gathered: Gathered = { optionalBodies: new Set(), ownSecurity: new Set(), oauthFlow: new Map() };
  describeRoutes(app, gathered);
  const publicUrl = ctx.config.publicUrl;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: 'v1',
        description: [
          'The developer-integration API of the merchant platform: OAuth apps and the OAuth 2 server that',
          'installs them on stores, secret and publishable keys, webhooks with signed, retried delivery, and',
          'the audit log.',
          '',
          'Guides: [Quickstart](' +
            GUIDES +
            '/quickstart.md), [Building an OAuth app](' +
            GUIDES +
            '/oauth-apps.md),',
          '[API keys](' + GUIDES + '/api-keys.md), [Platform services](' + GUIDES + '/platform-services.md).',
          '[Receiving webhooks](' + GUIDES + '/webhooks.md), [Operating svc](' + GUIDES + '/operations.md),',
          '[The audit log for auditors](' + GUIDES + '/audit.md).',
          '',
          'Two interfaces share the conventions of the contract: the merchant interface (`/api/v1/merchant`,',
          'a merchant session, the mode chosen by `X-Svc-Mode`) and the public interface (`/api/public/v1`, a',
          'key or access token, which decides the mode). Successes are `{"data": ...}`, lists',
          '`{"data": {"items", "count", "has_more", "next_cursor"}}`, errors `{"error": {"code", "message",',
          '"request_id"}}`.',
        ].join('\n'),
      },
      servers: [{ url: publicUrl }],
      tags: [
        { name: 'OAuth apps', description: 'Apps you publish, and apps installed on your account.' },
        { name: 'OAuth protocol', description: 'Authorize, consent, token, revoke, metadata.' },
        { name: 'Credentials', description: 'Secret and publishable key pairs.' },
        { name: 'Webhooks', description: 'Endpoints, their deliveries and attempts.' },
        { name: 'Events', description: 'What happened, and where each event went.' },
        { name: 'Logs', description: 'The audit log of every change.' },
        { name: 'Public', description: 'The public interface, with a key or an access token.' },
        { name: 'Merchant account', description: 'Sign-up, sign-in and the session.' },
        { name: 'Team', description: 'A merchant’s members, their roles, and invitations.' },
        { name: 'Internal', description: 'For the platform’s own services.' },
        {
          name: 'Event payloads',
          description: 'What the service POSTs to your webhook endpoints, one request per event type.',
        },
        { name: 'Health', description: 'Liveness, readiness, this document and the guides.' },
      ],
      components: components(),
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (documentObject) =>
      finishDocument(
        (documentObject as { openapiObject: Json }).openapiObject,
        webhooks,
        publicUrl,
        gathered,
      ) as never,
  });
}
