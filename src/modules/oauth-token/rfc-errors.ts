// The RFC error scope of the client-authenticated OAuth endpoints (token, revocation, introspection): form or
// JSON in, RFC 6749 JSON out (`{"error","error_description"}` rather than the API envelope), never cached. Each
// endpoint's plugin installs the form parser and this error handler in its own scope.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { isConnectionLoss, RETRY_AFTER_SECONDS } from '../../db/connection-loss.ts';
import { OAuthError } from './oauth.errors.ts';

export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function toOAuthError(err: FastifyError | Error, request: FastifyRequest): OAuthError {
  if (err instanceof OAuthError) return err;
  const fe = err as FastifyError & { validation?: { instancePath: string }[] };
  if (fe.validation) {
    const field = fe.validation[0]?.instancePath.replace(/^\//, '') || 'body';
    return new OAuthError('invalid_request', `${field} must be given once, as a string.`);
  }
  if (err instanceof AppError && err.status < 500) {
    // Text the database cannot store (src/http/text-guard.ts): the client's own credentials fail client
    // authentication, anything else is a malformed request.
    const field = err.details?.[0]?.field;
    if (field === 'client_id' || field === 'client_secret') {
      return new OAuthError('invalid_client', `Client authentication failed: ${err.message}`);
    }
    return new OAuthError('invalid_request', err.message);
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new OAuthError('invalid_request', 'Send the body as application/x-www-form-urlencoded or JSON.');
  }
  if (fe.statusCode === 429) return new OAuthError('rate_limited', 'Too many requests; retry later.');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new OAuthError('invalid_request', 'The request is malformed.');
  }
  if (isConnectionLoss(err)) {
    request.log.warn({ err: err.message.split('\n')[0] }, 'database unavailable');
    return new OAuthError('temporarily_unavailable', 'The service is briefly unavailable; retry later.', {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }
  request.log.error({ err }, 'oauth request failed');
  return new OAuthError('server_error', 'Something went wrong on our side; retry later.');
}

export function rfcErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const error = toOAuthError(err, request);
    return reply
      .code(error.status)
      .headers({ ...error.headers, ...NO_STORE })
      .type('application/json; charset=utf-8')
      .send(error.toJSON());
  });
}
