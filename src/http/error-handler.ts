// The one place where errors become HTTP answers: the envelope of API.md section 1, the code-to-status
// table, and nothing internal (stack, SQL, secret) in a body or a client-facing message.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { AppError, ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../lib/errors.ts';
import { isConnectionLoss, RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldOf(path: string, leaf?: unknown): string {
  const parts = path.split('/').filter(Boolean);
  if (typeof leaf === 'string') parts.push(leaf);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const listed = (values: readonly unknown[]) => values.map((v) => String(v)).join(', ');

/** The validator's message in words a person reads: what the field accepts, not the schema's keyword. */
function issueOf(e: AjvError): string {
  const p = e.params;
  switch (e.keyword) {
    case 'enum':
      return `must be one of ${listed(p.allowedValues as unknown[])}`;
    case 'const':
      return `must be ${String(p.allowedValue)}`;
    case 'type': {
      const types = String(p.type).split(',');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'minimum':
    case 'maximum':
      return `must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)}`;
    case 'minItems':
      return p.limit === 1 ? 'must not be empty' : `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'format':
      return p.format === 'date-time'
        ? 'must be a date and time (ISO 8601, 2026-12-01T10:00:00Z)'
        : `must be a valid ${String(p.format)}`;
    case 'pattern':
      return 'is not in the expected form';
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * A union of constants (TypeBox literals: a role, a mode) fails once per branch, then once as `anyOf`: one
 * detail says every value it accepts ("role must be one of viewer, developer, admin, owner").
 */
function unionsOfConstants(errors: AjvError[]): Map<string, unknown[]> {
  const allowed = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword !== 'const') continue;
    allowed.set(e.instancePath, [...(allowed.get(e.instancePath) ?? []), e.params.allowedValue]);
  }
  return allowed;
}

export function validationDetails(errors: AjvError[], context: string | undefined): ErrorDetail[] {
  const constants = unionsOfConstants(errors);
  const details = errors.map((e): ErrorDetail => {
    const field = () => fieldOf(e.instancePath) || (context ?? 'body');
    const union = constants.get(e.instancePath);
    if (union && (e.keyword === 'const' || e.keyword === 'anyOf')) {
      return {
        field: field(),
        issue: union.length === 1 ? `must be ${String(union[0])}` : `must be one of ${listed(union)}`,
      };
    }
    switch (e.keyword) {
      case 'additionalProperties':
        return {
          field: fieldOf(e.instancePath, e.params.additionalProperty),
          issue: 'is not an allowed field',
        };
      case 'required':
        return { field: fieldOf(e.instancePath, e.params.missingProperty), issue: 'is required' };
      default:
        return { field: field(), issue: issueOf(e) };
    }
  });
  // anyOf/union failures repeat one field per branch: keep one detail per field and issue
  const seen = new Set<string>();
  return details.filter((d) => !seen.has(d.field + d.issue) && seen.add(d.field + d.issue));
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
  FST_ERR_BAD_URL: 'validation_failed',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  unsupported_media_type: 'Send the body as application/json.',
  payload_too_large: 'The body is larger than 1 MiB.',
  invalid_json: 'The body is not valid JSON.',
  rate_limited: 'Too many requests; retry after the time in Retry-After.',
  service_unavailable: 'The database is unreachable; retry after the time in Retry-After.',
  internal_error: 'Something went wrong on our side; the request id identifies it for support.',
};

export function toAppError(err: FastifyError | AppError | Error): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation) {
    const details = validationDetails(fe.validation, fe.validationContext);
    const first = details[0];
    const message = first ? `${first.field} ${first.issue}.` : 'The request is invalid.';
    return new AppError('validation_failed', message, { details });
  }
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) return new AppError(mapped, MESSAGES[mapped] ?? 'The request is invalid.');
  if (fe.statusCode === 429) return new AppError('rate_limited', MESSAGES.rate_limited!);
  if (isConnectionLoss(err)) {
    return new AppError('service_unavailable', MESSAGES.service_unavailable!, {
      headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
    });
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('validation_failed', 'The request is invalid.');
  }
  return new AppError('internal_error', MESSAGES.internal_error!);
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: AppError): FastifyReply {
  if (error.headers) void reply.headers(error.headers);
  // also here, not only in onRequest: errors raised before the hooks (a malformed URL) need it too
  void reply.header('x-request-id', request.id);
  return reply
    .code(ERROR_STATUS[error.code])
    .type('application/json; charset=utf-8')
    .send({
      error: {
        code: error.code,
        message: error.message,
        request_id: request.id,
        ...(error.details ? { details: error.details } : {}),
      },
    });
}

/** The error as an AppError, logged when it is ours (a 5xx). */
export function toLoggedAppError(err: FastifyError | Error, request: FastifyRequest): AppError {
  const error = toAppError(err);
  if (error.code === 'internal_error') request.log.error({ err }, 'request failed');
  else if (error.code === 'service_unavailable')
    request.log.warn({ err: String(err.message).split('\n')[0] }, 'database unavailable');
  return error;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) =>
    sendError(reply, request, toLoggedAppError(err, request)),
  );
}

/**
 * Errors of the HTTP parser, before there is a request (headers too large, a malformed request line): the
 * envelope with a new request id, then the socket closes, as Node's own handler does.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
    socket.destroy(err);
    return;
  }
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request headers are too large.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive.']
        : [400, 'invalid_request', 'The request is not valid HTTP.'];
  const id = `req_${randomUUID().replaceAll('-', '')}`;
  const body = JSON.stringify({ error: { code, message, request_id: id } });
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[
    status
  ];
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\n\r\n${body}`,
  );
}
