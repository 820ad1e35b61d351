// Errors carry a machine code; the HTTP edge (src/http/error-handler.ts) maps each code to its status and
// to the error envelope. Services throw these without knowing about HTTP.
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_mode: 400,
  invalid_invitation: 400,
  mode_mismatch: 400,
  unauthenticated: 401,
  invalid_credential: 401,
  invalid_credentials: 401,
  insufficient_scope: 403,
  credential_not_browser_safe: 403,
  forbidden: 403,
  step_up_required: 403,
  mfa_enrolment_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  issue: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `No such ${what}.`);

export function invalid(field: string, issue: string): AppError {
  return new AppError('validation_failed', `${field} ${issue}.`, { details: [{ field, issue }] });
}
