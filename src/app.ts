// The Fastify app: the conventions of API.md section 1 in one place (envelopes, codes, request ids, body
// parsing, unknown fields, modes), then what the feature modules contribute, in their three mounts. Part of
// the composition (with src/modules.ts and src/server.ts), not of the `http/` toolkit that modules import.
import Fastify, {
  LogController,
  errorCodes,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from './context.ts';
import { AppError } from './lib/errors.ts';
import { ErrorEnvelope } from './http/schemas.ts';
import { answerClientError, installErrorHandler, sendError, toAppError } from './http/error-handler.ts';
import { guardText } from './http/text-guard.ts';
import { lazyChildLogger } from './http/logging.ts';
import { requestIds } from './http/request-ids.ts';
import { registerOpenApi } from './http/openapi.ts';
import { merchantAuth } from './http/merchant-auth.ts';
import type { Role } from './http/roles.ts';
import { registerPublicRateLimit } from './http/public-rate-limit.ts';
import { contractStep } from './http/contract.ts';
import { registerHealth } from './http/health.ts';
import { readYourWrites } from './http/read-your-writes.ts';
import { docsSecurityPolicy } from './http/security-headers.ts';
import { serverTimeouts } from './http/timeouts.ts';
import { compilerOptions, createCompilers, type Compilers } from './http/compilers.ts';
import { addRouteHook, methodsOf } from './http/route-hooks.ts';
import type { Composition } from './modules.ts';
import { eventWebhooks } from './modules/events/index.ts';

export const BODY_LIMIT = 1024 * 1024;
const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyInstance {
    ctx: Context;
    /** Every registered route: for 405 answers, and for the tests that check each route. */
    routeTable: readonly RouteEntry[];
  }
  interface FastifyContextConfig {
    /** Merchant routes that need no session (signup, login). */
    anonymous?: boolean;
  }
}

function validators(app: FastifyInstance, { body, params }: Compilers) {
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : params).compile(schema));
}

function bodies(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON only (API.md section 1): any other media type answers 415. The OAuth routes add form bodies.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (req, body, done) => {
      const text = body as string;
      if (text === '') return done(null, undefined);
      void parseJson(req, text, (err, value) =>
        done(err ? new AppError('invalid_json', 'The body is not valid JSON.') : null, value),
      );
    },
  );
  // A body with no Content-Type (API.md section 1, Bodies): a route that takes no body, or only optional
  // fields, reads it as JSON, so that `curl -d '{}'` works on enable, revoke and logout. A route with
  // required fields, or text that is not JSON, answers 415 as before: the client must say what it sends.
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    const text = (body as string).trim();
    if (req.headers['content-type'] === undefined && takesNoRequiredField(req) && /^[[{]/.test(text)) {
      return void parseJson(req, text, (err, value) =>
        done(err ? new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE() : null, value),
      );
    }
    if (req.headers['content-type'] === undefined && text === '') return done(null, undefined);
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE());
  });
  // A POST whose route takes no body may come with none: validate it as `{}` so that a route with an
  // optional body sees its defaults and one with required fields names them. On those routes alone.
  app.addHook('onRoute', (route) => {
    const methods = methodsOf(route);
    if (!route.schema?.body || !methods.some((m) => WRITE_METHODS.has(m))) return;
    addRouteHook(route, 'preValidation', (request, _reply, done) => {
      if (request.body === undefined && WRITE_METHODS.has(request.method)) request.body = {};
      done();
    });
  });
}

// A body schema given per media type (`content`, as the OAuth consent's JSON and form) is validated only for
// a request that names one of them: its JSON schema decides here, so that a body sent without a
// Content-Type never reaches a handler unvalidated.
type BodySchema = { required?: unknown[]; content?: Record<string, { schema?: BodySchema }> };

function takesNoRequiredField(request: FastifyRequest): boolean {
  const declared = request.routeOptions.schema?.body as BodySchema | undefined;
  const schema = declared?.content ? declared.content['application/json']?.schema : declared;
  return schema === undefined || !Array.isArray(schema.required) || schema.required.length === 0;
}

export interface RouteEntry {
  url: string;
  pattern: RegExp;
  methods: Set<string>;
  anonymous: boolean;
  /** The least role a merchant route (or the consent step) needs. */
  role: Role | undefined;
  hidden: boolean;
}

function notFoundAndMethods(app: FastifyInstance) {
  const routes: RouteEntry[] = [];
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split('/')
      .map((part) =>
        part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    const methods = methodsOf(route);
    routes.push({
      url: route.url,
      pattern: new RegExp(`^${source}$`),
      methods: new Set(methods),
      anonymous: route.config?.anonymous === true,
      role: route.config?.role,
      hidden: route.schema?.hide === true,
    });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) route.methods.forEach((m) => allowed.add(m));
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      return sendError(
        reply,
        request,
        new AppError('method_not_allowed', `Use one of: ${allow}.`, { headers: { allow } }),
      );
    }
    return sendError(reply, request, new AppError('not_found', 'No such path.'));
  });
}

// What every request carries, its mode (API.md section 1) and who calls, until the one onRequest step
// (src/http/contract.ts) reads them from its headers and credential.
function everyRequest(app: FastifyInstance) {
  app.decorateRequest('mode', 'test');
  app.decorateRequest('modeHeader', undefined);
  app.decorateRequest('merchant', null);
  app.decorateRequest('principal', null);
  app.decorateRequest('caller', null);
}

// What a /docs answer carries over from the reference: its body's type, a download's file name, a redirect.
const REFERENCE_HEADERS = ['content-type', 'content-disposition', 'location', 'access-control-allow-origin'];

/**
 * /docs, the API reference (Scalar): its 4 MB script held in memory is about 20 MB of the process's resident
 * set, so it is loaded on the first visit, into a Fastify instance of its own that /docs answers from.
 */
function lazyReference(app: FastifyInstance) {
  let reference: Promise<FastifyInstance> | undefined;
  const load = async () => {
    const { default: apiReference } = await import('@scalar/fastify-api-reference');
    const docs = Fastify({ logger: false });
    await docs.register(apiReference, {
      routePrefix: '/docs',
      configuration: {
        pageTitle: 'svc API reference',
        content: () => app.swagger(),
        // Everything from this service: no web fonts, no hosted client, nothing fetched from elsewhere.
        withDefaultFonts: false,
        hideClientButton: true,
        showDeveloperTools: 'never',
        mcp: { disabled: true },
        agent: { disabled: true },
        telemetry: false,
      },
    });
    await docs.ready();
    return docs;
  };
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    reference ??= load();
    const res = await (await reference).inject({ method: 'GET', url: request.url });
    if (res.statusCode === 404) throw new AppError('not_found', 'No such path.');
    for (const name of REFERENCE_HEADERS) {
      const value = res.headers[name];
      if (value !== undefined) void reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.body);
  };
  const hidden = { schema: { hide: true } };
  app.get('/docs', hidden, answer);
  app.get('/docs/*', hidden, answer);
}

async function docs(app: FastifyInstance, ctx: Context) {
  await registerOpenApi(app, ctx, eventWebhooks());
  lazyReference(app);
  app.get(
    '/api/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document',
        tags: ['Health'],
        response: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) },
      },
    },
    () => app.swagger(),
  );
}

// Every answer counted by route pattern (never the raw URL: ids would make a series per object), method and
// status class. A callback hook with pre-bound children: about 1 us per request on the public read path.
function countAnswers(app: FastifyInstance, ctx: Context) {
  app.addHook('onResponse', (request, reply, done) => {
    ctx.metrics.observeHttp(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}

/**
 * The HTTP app: the conventions of API.md section 1, then what the modules contribute, in their mounts.
 * `compilers`: what compiles its schemas, shared by the apps of one process that are given the same.
 */
export async function buildApp(
  ctx: Context,
  composition: Composition,
  compilers: Compilers = createCompilers(),
): Promise<FastifyInstance> {
  const { modules } = composition;
  const requestId = requestIds();
  const app = Fastify({
    ...compilerOptions(compilers),
    ...serverTimeouts(ctx.config),
    // A request that reaches the server once it closes (on a kept-alive connection) is served, with
    // `Connection: close`, not refused with Fastify's own 503 body outside the error envelope: the modules and
    // the database stop only after HTTP has (src/server.ts).
    return503OnClosing: false,
    loggerInstance: ctx.log,
    // Only through the proxies the operator names: otherwise `request.ip` is the socket address, and an
    // X-Forwarded-For sent by a client is ignored (it would let anyone pick the address a limit counts).
    trustProxy: ctx.config.trustProxy === false ? false : [...ctx.config.trustProxy],
    bodyLimit: BODY_LIMIT,
    genReqId: (req) => requestId(req.headers['x-request-id']),
    childLoggerFactory: lazyChildLogger,
    // Errors Fastify raises before a route runs (a malformed URL) and those of the HTTP parser (a header
    // overflow) answer in our envelope with a request id too.
    frameworkErrors: (err, request, reply) => {
      void sendError(reply, request, toAppError(err));
    },
    clientErrorHandler: answerClientError,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      // One line per request costs about 10% of throughput on the public read path; on at debug level.
      disableRequestLogging: ctx.config.logLevel !== 'debug' && ctx.config.logLevel !== 'trace',
    }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('ctx', ctx);
  app.addSchema(ErrorEnvelope);
  validators(app, compilers);
  bodies(app);
  installErrorHandler(app);
  guardText(app);
  countAnswers(app, ctx);
  readYourWrites(app, ctx);
  notFoundAndMethods(app);
  everyRequest(app);
  contractStep(app, ctx, composition.credentials);
  docsSecurityPolicy(app);

  if (ctx.config.rateLimit) {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_req, limit) =>
        Object.assign(new Error(`rate limited for ${limit.after}`), { statusCode: 429 }),
    });
  }
  await docs(app, ctx);

  registerHealth(app, ctx);

  for (const m of modules) m.appHooks?.(app);

  await app.register(
    async (merchant) => {
      await merchant.register(cookie);
      merchantAuth(merchant, composition.session);
      for (const m of modules) m.interfaceHooks?.(merchant);
      for (const m of modules) if (m.merchantRoutes) await merchant.register(m.merchantRoutes);
    },
    { prefix: '/api/v1/merchant' },
  );

  await app.register(
    async (pub) => {
      registerPublicRateLimit(pub);
      for (const m of modules) m.interfaceHooks?.(pub);
      for (const m of modules) if (m.publicRoutes) await pub.register(m.publicRoutes);
    },
    { prefix: '/api/public/v1' },
  );

  // Cookies (the session, the sign-in device) belong to the merchant interface above and to the pages here
  // (consent, dashboard). The public interface takes bearer credentials only, so its calls skip the cookie
  // plugin's two hooks.
  await app.register(async (site) => {
    await site.register(cookie);
    for (const m of modules) if (m.routes) await site.register(m.routes);
  });

  return app;
}
