// GET /oauth/authorize, its sign-in step, and POST /oauth/authorize/consent. These routes authenticate the
// merchant themselves (session cookie or Bearer session), render our own pages, and may not be framed.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { checkOrigin, fromOwnOrigin, resolveMerchant } from '../../http/merchant-auth.ts';
import { checkRole } from '../../http/roles.ts';
import { checkSecondFactor } from '../../http/second-factor.ts';
import { merchantOf, requestMeta, type MerchantPrincipal } from '../../http/request.ts';
import { SECURITY } from '../../http/route-security.ts';
import { acceptForms, isForm } from '../../http/forms.ts';
import { errors } from '../../http/schemas.ts';
import { sendError, toLoggedAppError } from '../../http/error-handler.ts';
import { AppError } from '../../lib/errors.ts';
import { uriTextIssue } from '../../lib/uri.ts';
import { merchantName } from '../merchants/index.ts';
import { authenticateSession, deviceCookieOf, me, setSignInCookies, signIn } from '../identity/index.ts';
import { clientById } from '../oauth-apps/index.ts';
import {
  checkAuthorizationRequest,
  consentCsrfToken,
  csrfTokenValid,
  decideConsent,
  openConsent,
  type AuthorizationRequest,
} from './authorize.service.ts';
import type { AuthorizeState } from './authorize.state.ts';
import { consentPage, describeScopes, errorPage, signInPage } from './authorize.pages.ts';
import type { ConsentForm, ConsentJson } from './authorize.schemas.ts';
import { AuthorizeQuery, ConsentAnswer, ConsentBody, ConsentInfo } from './authorize.schemas.ts';

export const AUTHORIZE_PATH = '/api/public/v1/oauth/authorize';
const CONSENT_PATH = `${AUTHORIZE_PATH}/consent`;
const LOGIN_PATH = `${AUTHORIZE_PATH}/login`;
/** A user with a second factor signs in on the dashboard (its two steps), then comes back through the app. */
const SECOND_FACTOR_ELSEWHERE =
  'This account has a second factor: sign in on the dashboard first, then start again from the app.';
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'",
  // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on the page's own form posts,
  // which the origin check refuses; cross-origin requests still get no referrer.
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(html);
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

/** How a consent decision is refused: our page to the consent form, the API's error to a JSON call. */
function refusal(request: FastifyRequest, reply: FastifyReply) {
  return (status: number, title: string, message: string, error: AppError): FastifyReply => {
    if (isForm(request.headers['content-type'])) return sendPage(reply, status, errorPage(title, message));
    throw error;
  };
}

/** A session that does not verify counts as none here: the page offers to sign in again. */
async function signedIn(request: FastifyRequest): Promise<MerchantPrincipal | null> {
  try {
    return await resolveMerchant(request, authenticateSession);
  } catch {
    return null;
  }
}

export const authorizeRoutes =
  (state: AuthorizeState): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    acceptForms(app);
    // Input refused before a handler runs (text the database cannot store, src/http/text-guard.ts) is shown
    // on our page to a browser, never redirected: the client and redirect URI are not known to be good yet.
    app.setErrorHandler((err: Error, request, reply) => {
      const error = toLoggedAppError(err, request);
      const browser =
        request.method === 'GET' ? !wantsJson(request) : isForm(request.headers['content-type']);
      if (browser && error.code === 'validation_failed') {
        return sendPage(reply, 400, errorPage('Invalid request', `invalid_request: ${error.message}`));
      }
      return sendError(reply, request, error);
    });
    const ctx = app.ctx;

    async function renderConsent(
      reply: FastifyReply,
      merchant: MerchantPrincipal,
      consentId: string,
      authz: AuthorizationRequest,
    ) {
      const [developer, mine] = await Promise.all([
        merchantName(ctx.db, authz.app.merchantId),
        me(ctx, merchant),
      ]);
      return sendPage(
        reply,
        200,
        consentPage({
          action: CONSENT_PATH,
          consentId,
          csrfToken: consentCsrfToken(ctx, consentId, merchant.sessionId),
          appName: authz.app.name,
          developer: developer ?? 'an unknown developer',
          testMode: authz.app.mode === 'test',
          scopes: describeScopes(authz.scopes),
          stores: mine.stores.map((s) => s.name),
          merchantName: mine.merchant.name,
          redirectHost: new URL(authz.redirectUri).host,
        }),
      );
    }

    app.get(
      AUTHORIZE_PATH,
      {
        // Installing an app on the store is an admin's (API.md section 11.2): a member below sees why here.
        // The page signs the merchant in itself: open to anyone.
        config: { role: 'admin', security: SECURITY.none, oauthFlow: 'authorization' },
        schema: {
          operationId: 'authorize',
          summary: 'Start an install: sign-in and consent (RFC 6749 4.1.1)',
          tags: ['OAuth protocol'],
          description:
            'A browser page. S256 PKCE is required. Ask with `Accept: application/json` for the consent as data.',
          querystring: AuthorizeQuery,
          response: { 200: ConsentInfo, ...errors(400, 401) },
        },
        // The schema documents the query; the handler checks it and answers in RFC 6749 4.1.2.1 form.
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const check = await checkAuthorizationRequest(state.apps, ctx, request.query);
        if (check.kind === 'page') {
          if (wantsJson(request)) throw new AppError('validation_failed', check.message);
          return sendPage(reply, 400, errorPage(check.title, check.message));
        }
        if (check.kind === 'redirect') {
          return reply.headers({ 'cache-control': 'no-store' }).redirect(check.location, 302);
        }
        const authz = check.request;
        const merchant = await signedIn(request);
        if (!merchant) {
          if (wantsJson(request)) throw new AppError('unauthenticated', 'Sign in first.');
          return sendPage(
            reply,
            200,
            signInPage({ action: LOGIN_PATH, returnTo: request.url, appName: authz.app.name }),
          );
        }
        try {
          checkRole(request, merchant.role);
        } catch (err) {
          if (wantsJson(request) || !(err instanceof AppError)) throw err;
          return sendPage(
            reply,
            403,
            errorPage('Ask an owner or admin', `Only an owner or admin can install an app. ${err.message}`),
          );
        }
        try {
          checkSecondFactor(request, merchant);
        } catch (err) {
          if (wantsJson(request) || !(err instanceof AppError)) throw err;
          return sendPage(reply, 403, errorPage('Enrol a second factor', err.message));
        }
        const consentId = await openConsent(ctx, authz, merchant.merchantId);
        if (!wantsJson(request)) return renderConsent(reply, merchant, consentId, authz);
        const developer = await merchantName(ctx.db, authz.app.merchantId);
        void reply.header('cache-control', 'no-store');
        return {
          data: {
            consent_id: consentId,
            app: {
              id: authz.app.id,
              name: authz.app.name,
              client_id: authz.app.clientId,
              developer: developer ?? '',
              mode: authz.app.mode,
            },
            scopes: authz.scopes,
            redirect_uri: authz.redirectUri,
          },
        };
      },
    );

    app.post(
      LOGIN_PATH,
      {
        config: { security: SECURITY.none },
        schema: {
          operationId: 'signInToAuthorize',
          summary: 'The sign-in form of the authorize page',
          tags: ['OAuth protocol'],
          description:
            'A form post from the authorize page itself, answered with that page; not for API clients.',
          consumes: ['application/x-www-form-urlencoded'],
          body: Type.Object({}, { additionalProperties: true }),
        },
      },
      async (request, reply) => {
        const body = request.body as Record<string, unknown>;
        const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
        const returnTo = text('return_to');
        // Checked as text before the password: the redirect after a good sign-in must be sendable.
        if (
          !returnTo.startsWith(`${AUTHORIZE_PATH}?`) ||
          uriTextIssue(returnTo) !== undefined ||
          !fromOwnOrigin(request)
        ) {
          return sendPage(
            reply,
            400,
            errorPage('Sign-in failed', 'This sign-in form is not valid. Start again from the app.'),
          );
        }
        const clientId = new URLSearchParams(returnTo.slice(AUTHORIZE_PATH.length + 1)).get('client_id');
        const appName = (clientId && (await clientById(state.apps, ctx, clientId))?.name) || 'An app';
        try {
          // The same budget as /auth/login: one account, one set of limits, whichever form is used.
          const result = await signIn(state.signIns, ctx, {
            email: text('email'),
            password: text('password'),
            ip: request.ip,
            userAgent: requestMeta(request).userAgent,
            device: deviceCookieOf(request.cookies),
            log: request.log,
          });
          // The second step lives in the dashboard: the form sends the user there, and back through the app.
          if ('mfa' in result) throw new AppError('invalid_credentials', SECOND_FACTOR_ELSEWHERE);
          setSignInCookies(reply, ctx.config, result);
          return reply.headers({ 'cache-control': 'no-store' }).redirect(returnTo, 303);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          if (err.code !== 'invalid_credentials' && err.code !== 'rate_limited') throw err;
          if (err.headers) void reply.headers(err.headers);
          return sendPage(
            reply,
            err.status,
            signInPage({
              action: LOGIN_PATH,
              returnTo,
              appName,
              email: text('email'),
              error:
                err.code === 'rate_limited' || err.message === SECOND_FACTOR_ELSEWHERE
                  ? err.message
                  : 'The email or password is wrong.',
            }),
          );
        }
      },
    );

    app.post(
      CONSENT_PATH,
      {
        config: { role: 'admin', security: SECURITY.session },
        schema: {
          operationId: 'submitConsent',
          summary: 'Approve or deny a consent',
          tags: ['OAuth protocol'],
          body: ConsentBody,
          response: { 200: ConsentAnswer, ...errors(400, 401, 403, 404) },
        },
        // Who asks is settled before the body is validated, as on every authenticated route: 401 or 403 first.
        preValidation: async (request, reply) => {
          const fail = refusal(request, reply);
          let merchant: MerchantPrincipal | null;
          try {
            merchant = await resolveMerchant(request, authenticateSession);
            if (merchant) {
              checkOrigin(request, merchant);
              checkRole(request, merchant.role);
              checkSecondFactor(request, merchant);
            }
          } catch (err) {
            if (err instanceof AppError) return fail(err.status, 'Not allowed', err.message, err);
            throw err;
          }
          if (!merchant) {
            const err = new AppError('unauthenticated', 'Sign in first.');
            return fail(401, 'Signed out', 'Your session ended. Start again from the app.', err);
          }
          request.merchant = merchant;
        },
      },
      async (request, reply) => {
        const form = isForm(request.headers['content-type']);
        const fail = refusal(request, reply);
        const merchant = merchantOf(request);
        let consentId: string;
        let approve: boolean;
        if (form) {
          const body = request.body as Static<typeof ConsentForm>;
          consentId = body.consent_id ?? '';
          if (!consentId || !csrfTokenValid(ctx, consentId, merchant.sessionId, body.csrf_token ?? '')) {
            return fail(
              403,
              'Not allowed',
              'This form is not valid. Start again from the app.',
              new AppError('forbidden', 'Bad form.'),
            );
          }
          approve = body.approve === 'true';
        } else {
          const body = request.body as Static<typeof ConsentJson>;
          consentId = body.consent_id;
          approve = body.approve;
        }
        const redirectTo = await decideConsent(
          state,
          ctx,
          merchant,
          consentId,
          approve,
          requestMeta(request),
        );
        if (!redirectTo) {
          return fail(
            400,
            'Request expired',
            'This authorization request expired or was already answered. Start again from the app.',
            new AppError('not_found', 'No such consent: unknown, expired or already decided.'),
          );
        }
        if (form) return reply.headers({ 'cache-control': 'no-store' }).redirect(redirectTo, 303);
        void reply.header('cache-control', 'no-store');
        return { data: { redirect_to: redirectTo } };
      },
    );
  };
