// The error codes of RFC 6749 (5.2 for the token endpoint, 4.1.2.1 for authorization responses), RFC 7009, and
// RFC 6750's invalid_token for a platform service whose bearer token is wrong at introspection (RFC 7662 2.1).
// Each carries its HTTP status; descriptions are for developers and never hold a secret.
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  unsupported_token_type: 400,
  invalid_token: 401,
  invalid_dpop_proof: 400,
  access_denied: 403,
  unsupported_response_type: 400,
  server_error: 500,
  temporarily_unavailable: 503,
  rate_limited: 429,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly headers: Record<string, string>;

  constructor(error: OAuthErrorCode, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.headers = headers;
  }

  get status(): number {
    return OAUTH_ERROR_STATUS[this.error];
  }

  toJSON() {
    return { error: this.error, error_description: this.message };
  }
}

/** Client authentication failed. With HTTP Basic, RFC 6749 5.2 requires the challenge. */
export function invalidClient(description: string, basic: boolean): OAuthError {
  return new OAuthError(
    'invalid_client',
    description,
    basic ? { 'www-authenticate': 'Basic realm="svc", charset="UTF-8"' } : {},
  );
}
