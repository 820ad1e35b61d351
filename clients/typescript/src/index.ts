// The thin hand-written layer over the generated types (schema.d.ts) and openapi-fetch: what generation
// cannot know. A bearer credential and a mode on every call, an Idempotency-Key on every POST, typed errors
// with the contract's code and request id, retries of 429 and 503 that honour Retry-After, and cursor paging
// as an async iterator.
import createClient, {
  type Client,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { components, paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';
/** An event id of the catalog: what webhooks subscribe to and `trigger` records. */
export type EventType = components['schemas']['EventType'];

export interface SvcClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:4000. */
  baseUrl: string;
  /** A merchant session token (svc_mst_), a key (svc_..._sk_ / _pk_) or an access token (svc_oat_). */
  token?: string;
  /** Merchant interface: the mode to act in (the service's default is test). */
  mode?: 'test' | 'live';
  /** How many times a 429 or 503 is retried (default 3). */
  retries?: number;
  /** For tests and other runtimes. */
  fetch?: typeof globalThis.fetch;
}

interface ErrorBody {
  error?: {
    code?: string;
    message?: string;
    request_id?: string;
    details?: { field: string; issue: string }[];
  };
}

/** An error answer of the service: its HTTP status, the contract's code, and the id to quote to support. */
export class SvcError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: { field: string; issue: string }[];

  constructor(status: number, body: unknown, requestId: string | null) {
    const error = (body as ErrorBody | undefined)?.error;
    super(error?.message ?? `The service answered ${status}.`);
    this.name = 'SvcError';
    this.status = status;
    this.code = error?.code ?? 'http_error';
    this.requestId = error?.request_id ?? requestId;
    this.details = error?.details ?? [];
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds of Retry-After, or an exponential back-off (0.5 s, 1 s, 2 s...) when it is absent; at most 30 s. */
function delayMs(response: Response, attempt: number): number {
  const header = Number(response.headers.get('retry-after'));
  const seconds = Number.isFinite(header) && header >= 0 ? header : 0.5 * 2 ** attempt;
  return Math.min(seconds, 30) * 1000;
}

function retrying(base: typeof globalThis.fetch, retries: number): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if ((response.status !== 429 && response.status !== 503) || attempt >= retries) return response;
      await response.body?.cancel();
      await sleep(delayMs(response, attempt));
    }
  };
}

/** Every POST carries an Idempotency-Key, so a retry (ours or the caller's) never does the work twice. */
const idempotency: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    return request;
  },
};

// openapi-fetch infers the request options from the argument and adds an index signature to them, so a
// misspelled body field compiles (`{ body: { nam: 'x' } }`). The client's own methods check the body against
// the operation's: a field it does not name is `never`, at any depth, which fails to compile.
type KeysOf<T> = T extends unknown ? keyof T : never;
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
/** `Given` with every field that `Allowed` does not name typed `never`; arrays and values as they are. */
type Exactly<Allowed, Given> = Given extends readonly unknown[]
  ? Given
  : Given extends object
    ? {
        [K in keyof Given]: K extends KeysOf<Allowed>
          ? Exactly<NonNullable<FieldOf<Allowed, K>>, Given[K]>
          : never;
      }
    : Given;
type BodyOf<Init> = Init extends { body?: infer B } ? B : never;
type Checked<Init, Allowed> = Init &
  (Init extends { body: infer B } ? { body: Exactly<BodyOf<Allowed>, B> } : unknown);
type Args<Init, Allowed> =
  RequiredKeysOf<Init> extends never ? [Checked<Init, Allowed>?] : [Checked<Init, Allowed>];

type StrictMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: Args<Init, MaybeOptionalInit<paths[Path], Method>>
) => Promise<FetchResponse<NonNullable<paths[Path][Method]>, Init, MediaType>>;

/** openapi-fetch's client, whose calls also refuse request body fields the operation does not name. */
export type SvcClient = Omit<Client<paths>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'> & {
  GET: StrictMethod<'get'>;
  PUT: StrictMethod<'put'>;
  POST: StrictMethod<'post'>;
  DELETE: StrictMethod<'delete'>;
  PATCH: StrictMethod<'patch'>;
};

export function createSvcClient(options: SvcClientOptions): SvcClient {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.mode) headers['x-svc-mode'] = options.mode;
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    fetch: retrying(options.fetch ?? globalThis.fetch, options.retries ?? 3),
  });
  client.use(idempotency);
  // The same calls, typed more strictly: nothing changes at run time.
  return client as unknown as SvcClient;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The `data` of a success envelope, or a thrown SvcError. */
export async function unwrap<T>(call: Promise<Answer<{ data: T }>>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    throw new SvcError(response.status, error, response.headers.get('x-request-id'));
  }
  return data.data;
}

interface ListPage<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Every item of a list, page after page: `page` asks for the page after a cursor (undefined for the first).
 *
 *   for await (const entry of paginate((after) =>
 *     client.GET('/api/v1/merchant/developer/logs', { params: { query: { starting_after: after } } })))
 */
export async function* paginate<T>(
  page: (startingAfter: string | undefined) => Promise<Answer<{ data: ListPage<T> }>>,
): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const { items, has_more, next_cursor } = await unwrap(page(after));
    yield* items;
    if (!has_more || !next_cursor) return;
    after = next_cursor;
  }
}
