// Log lines carry the request id and never a credential: headers that hold them are not logged at all, query
// values of credential-bearing parameters are masked, and error messages are scrubbed of anything shaped like
// a secret. Errors are logged by type, code and message, without stack or SQL.
import type { FastifyBaseLogger } from 'fastify';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';

export type { DestinationStream };

const SENSITIVE_QUERY =
  /([?&](?:code|token|refresh_token|access_token|client_secret|password|state)=)[^&]*/gi;
const SECRET_SHAPE = /(svc_(?:test_|live_)?(?:sk|pk|cs|oac|oat|ort|mst|inv)_|whsec_)[0-9A-Za-z+/=]+/g;

export function scrub(text: string): string {
  return text.replace(SECRET_SHAPE, '$1[redacted]');
}

/** The process's logger, made before anything else so that every part logs through it from the start. */
export function createLogger(level: string, stream?: DestinationStream): FastifyBaseLogger {
  const options: LoggerOptions = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: scrub(req.url.replace(SENSITIVE_QUERY, '$1[redacted]')),
        ip: req.ip,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: ((err: Error & { code?: string }) => ({
        type: err.name,
        code: err.code,
        message: scrub(String(err.message).split('\n')[0]!.slice(0, 300)),
      })) as never,
    },
  };
  return stream ? pino(options, stream) : pino(options);
}

type Bindings = Record<string, unknown>;
type Line = [obj: unknown, msg?: string, ...args: unknown[]];

/**
 * A request's logger, made on its first line. Fastify makes a pino child per request for `request.log`; the
 * public read logs nothing unless it fails, and the child (its bindings serialised, a prototype chain) was
 * 1.3% of its CPU (docs/decisions/0220-public-contract-in-one-step.md).
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;
  private readonly parent: FastifyBaseLogger;
  private readonly bindings: Bindings;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.parent = parent;
    this.bindings = bindings;
  }

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  child(bindings: Bindings): FastifyBaseLogger {
    return this.real.child(bindings);
  }

  fatal(...line: Line): void {
    this.real.fatal(...line);
  }

  error(...line: Line): void {
    this.real.error(...line);
  }

  warn(...line: Line): void {
    this.real.warn(...line);
  }

  info(...line: Line): void {
    this.real.info(...line);
  }

  debug(...line: Line): void {
    this.real.debug(...line);
  }

  trace(...line: Line): void {
    this.real.trace(...line);
  }

  silent(): void {}
}

/** Fastify's `childLoggerFactory`: the request's child logger, made when it first logs. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings): FastifyBaseLogger {
  return new RequestLogger(logger, bindings);
}
