// The parameters of the OAuth endpoints (form or JSON, RFC 6749 3.2), read one at a time.
import { OAuthError } from './oauth.errors.ts';

export type Params = Record<string, unknown>;

/** One value or none: RFC 6749 3.2 forbids repeated parameters, and an empty one counts as omitted. */
export function param(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new OAuthError('invalid_request', `${name} must be given once, as a string.`);
  }
  return value;
}
