// Text the databases cannot store is refused at the edge, once for every route: PostgreSQL refuses a NUL
// byte in text and jsonb, and a lone UTF-16 surrogate has no UTF-8 form, so either reached SQL as a 500
// (76 of the 90 server errors of an adversarial run). Path parameters, the query string and the parsed body
// (JSON or form, keys and values, at any depth) are checked before validation; the OAuth endpoints turn the
// answer into their RFC form in their own error handlers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetail } from '../lib/errors.ts';

// Deeper bodies are refused too: storing or serialising them recurses once per level, and no route's
// input nests more than a few levels (event data included).
export const MAX_DEPTH = 64;
export const TEXT_ISSUE = 'must not contain NUL bytes or unpaired UTF-16 surrogates';

/** Text that both databases can store: well-formed UTF-16 with no NUL. */
export function storableText(text: string): boolean {
  return !text.includes('\0') && text.isWellFormed();
}

const child = (path: string, key: string) =>
  /^\d+$/.test(key) ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** The first field holding text that cannot be stored, or nesting too deep; walked without recursion. */
export function unstorableField(value: unknown, root = ''): ErrorDetail | undefined {
  const stack: [unknown, string, number][] = [[value, root, 0]];
  while (stack.length > 0) {
    const [item, path, depth] = stack.pop()!;
    if (typeof item === 'string') {
      if (!storableText(item)) return { field: path || 'body', issue: TEXT_ISSUE };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_DEPTH) return { field: path || 'body', issue: `must not nest deeper than ${MAX_DEPTH}` };
    for (const key of Object.keys(item)) {
      const at = child(path, key);
      if (!storableText(key)) return { field: at, issue: `name ${TEXT_ISSUE}` };
      stack.push([(item as Record<string, unknown>)[key], at, depth + 1]);
    }
  }
  return undefined;
}

function check(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const bad =
    unstorableField(request.params) ?? unstorableField(request.query) ?? unstorableField(request.body);
  if (!bad) return done();
  done(new AppError('validation_failed', `${bad.field} ${bad.issue}.`, { details: [bad] }));
}

export function guardText(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request on the public read path.
  app.addHook('preValidation', check);
}
