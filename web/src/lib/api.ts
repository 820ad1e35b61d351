// The one way the dashboard talks to the service: the merchant interface, same origin, with the session
// cookie and the selected mode. Errors keep the envelope's code, message and request id for display.
import { getMode } from './mode.ts';
import { askStepUp } from './step-up.ts';

export const API = '/api/v1/merchant';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: { field: string; issue: string }[];

  constructor(
    status: number,
    code: string,
    message: string,
    requestId: string | null,
    details: { field: string; issue: string }[] = [],
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.details = details;
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();
/** Called when the service says the session is gone (expired, signed out elsewhere). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

interface ErrorBody {
  error?: {
    code?: string;
    message?: string;
    request_id?: string;
    details?: { field: string; issue: string }[];
  };
}

/**
 * A call of the merchant interface. A 403 `step_up_required` asks the signed-in user for a second factor in
 * place (step-up.ts) and retries the call once it is given; `mfa_enrolment_required` opens Settings →
 * Account, the one page such a member may use.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await call<T>(method, path, body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'mfa_enrolment_required') enrolmentListeners.forEach((l) => l());
    if (err.code !== 'step_up_required' || !(await askStepUp())) throw err;
    return call<T>(method, path, body);
  }
}

const enrolmentListeners = new Set<Listener>();
/** Called when the merchant requires a second factor the signed-in member has not enrolled. */
export function onEnrolmentRequired(listener: Listener): () => void {
  enrolmentListeners.add(listener);
  return () => enrolmentListeners.delete(listener);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-svc-mode': getMode() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(API + path, {
      method,
      credentials: 'same-origin',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection.', null);
  }
  const requestId = res.headers.get('x-request-id');
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // A proxy's HTML error page: reported below with the status.
  }
  if (!res.ok) {
    const err = (json as ErrorBody | undefined)?.error;
    const error = new ApiError(
      res.status,
      err?.code ?? 'http_error',
      err?.message ?? `The service answered ${res.status}.`,
      err?.request_id ?? requestId,
      err?.details ?? [],
    );
    if (res.status === 401 && !path.startsWith('/auth/')) signedOutListeners.forEach((l) => l());
    throw error;
  }
  return (json as { data: T }).data;
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A file from the merchant interface (an export), saved through the browser's download. */
export async function download(path: string, filename: string): Promise<void> {
  const res = await fetch(API + path, { credentials: 'same-origin', headers: { 'x-svc-mode': getMode() } });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as ErrorBody;
    throw new ApiError(
      res.status,
      body.error?.code ?? 'http_error',
      body.error?.message ?? `The service answered ${res.status}.`,
      body.error?.request_id ?? res.headers.get('x-request-id'),
    );
  }
  saveFile(await res.blob(), filename);
}

/** Saves data the page holds as a file, through the browser's download. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
