// The cost budgets of the hot paths, in one table: what each path sends to the database and asks of
// node:crypto, counted (never timed) by test/cost/budgets.test.ts on PostgreSQL and on PGlite, and what a
// public read allocates (test/cost/allocation.test.ts). Every figure is today's: a count above its budget fails
// as a regression, and a count below it fails too, asking for the lower figure, so that the table always says
// what the code does. Change a figure in the commit that changes the cost, and its line with it.
//
// What the counts are (src/db/statement-counter.ts counts at the drivers, test/cost/meter.ts keeps the
// operation's own):
// - a statement is one SQL command the database executes: a query, BEGIN, COMMIT, LISTEN, `select
//   pg_notify(...)`, a COPY whatever its rows; a simple-protocol text holding several commands counts each;
// - a round trip is one wait for the database's answer: one per query sent (on pg a simple Query, or the
//   extended protocol's Parse/Bind/Execute/Sync in one write; on PGlite one call of `query` or `exec`), plus
//   one for COPY FROM STDIN, whose rows are sent only after the server's CopyInResponse. A pipeline of queries
//   would count one per query; nothing here pipelines;
// - crypto: calls of node:crypto's operations by name (test/cost/crypto-counter.ts): hashes (`hash` is the
//   one-shot SHA-256), HMACs, ciphers, signatures, key derivation, random bytes and ids, constant-time compares;
// - only what the operation runs itself, in its own async context, after a warm-up (caches filled, pools'
//   connections open, a day's partition made): the background loops, the request log's one-second batch and
//   the batched last-use writes (one UPDATE per table every 5-10 s, whatever the calls) are not in a call's
//   count; the request log's batch has its own line.
// Figures differ between the databases only where the drivers do: see `pglite`.
import type { CryptoOp } from './crypto-counter.ts';

export const BUDGET_FILE = 'test/cost/budgets.ts';

export interface Figures {
  statements: number;
  roundTrips: number;
  crypto: Partial<Record<CryptoOp, number>>;
}

interface Budget extends Figures {
  /** What the count consists of. */
  readonly counts: string;
  /** PGlite's figures where they truly differ from PostgreSQL's, and why. */
  readonly pglite?: Partial<Figures> & { readonly why: string };
}

// Every call's request id (src/http/request-ids.ts): a per-app prefix and a counter, no crypto call since
// docs/decisions/0220-public-contract-in-one-step.md (one randomUUID before).
const REQUEST_ID = {} as const;

const BUDGETS = {
  'public read': {
    counts:
      'GET /api/public/v1/payments/supported-countries, secret key: the key found in the verified-key cache ' +
      '(its key is the SHA-256 of the token); no statement',
    statements: 0,
    roundTrips: 0,
    crypto: { ...REQUEST_ID, hash: 1 },
  },
  'public write': {
    counts:
      'POST /api/public/v1/stores/{id}/cart, secret key, no Idempotency-Key: 1 autocommitted INSERT ... ' +
      'SELECT of the cart (the store checked in the same statement); no BEGIN/COMMIT, no audit entry',
    statements: 1,
    roundTrips: 1,
    crypto: { ...REQUEST_ID, hash: 1 },
  },
  'public write, idempotent': {
    counts:
      'the same with an Idempotency-Key: 1 INSERT ... ON CONFLICT claiming the key + the cart INSERT + 1 ' +
      'UPDATE storing the answer, each autocommitted; the request fingerprint (SHA-256), the stored answer ' +
      'sealed under the master key (AES-GCM: its IV and the key id, a SHA-256)',
    statements: 3,
    roundTrips: 3,
    crypto: { ...REQUEST_ID, hash: 1, createHash: 2, createCipheriv: 1, randomBytes: 1 },
  },
  'introspection, secret key': {
    counts:
      'POST /api/public/v1/oauth/introspect with the internal token: the token digested and compared in ' +
      'constant time with the digest kept at start, the key from the verified-key cache; no statement',
    statements: 0,
    roundTrips: 0,
    crypto: { ...REQUEST_ID, hash: 1, createHash: 1, timingSafeEqual: 1 },
  },
  'introspection, publishable key': {
    counts: 'as the secret key: the same cache, no statement',
    statements: 0,
    roundTrips: 0,
    crypto: { ...REQUEST_ID, hash: 1, createHash: 1, timingSafeEqual: 1 },
  },
  'introspection, access token': {
    counts:
      'the internal token checked; the token from the access-token cache, its app from the client cache, ' +
      'its store from the first-store memo; no statement',
    statements: 0,
    roundTrips: 0,
    crypto: { ...REQUEST_ID, hash: 1, createHash: 1, timingSafeEqual: 1 },
  },
  'introspection by the app, access token': {
    counts:
      'client_secret_basic: the app from the client cache, its secret hashed and compared in constant time; ' +
      'the token from the access-token cache; no statement',
    statements: 0,
    roundTrips: 0,
    crypto: { ...REQUEST_ID, hash: 1, createHash: 1, timingSafeEqual: 1 },
  },
  refresh: {
    counts:
      'refresh_token grant, client_secret_basic: 1 autocommitted statement (token-statements.repository.ts ROTATE_SQL, ' +
      'on pg a named prepared statement on the oauth pool) that marks the token rotated, inserts the new pair ' +
      'and the audit entry, its sealing queue row and counters; no BEGIN/COMMIT. Crypto: the client secret ' +
      '(hash, compare), the presented token hashed, the new pair made (2 x 38 random bytes) and hashed',
    statements: 1,
    roundTrips: 1,
    crypto: { ...REQUEST_ID, createHash: 4, timingSafeEqual: 1, randomBytes: 2 },
  },
  'code exchange': {
    counts:
      'authorization_code grant with PKCE: 1 autocommitted statement (token-statements.repository.ts ISSUE_SQL, ' +
      'on pg a named prepared statement on the oauth pool) that checks the code (client, mode, expiry, ' +
      'redirect_uri, PKCE challenge, scope uncut), marks it used and inserts the family, the pair and the ' +
      'audit entry; no BEGIN/COMMIT. Crypto: the client secret (hash, compare), the code hashed, the ' +
      'verifier S256, the new pair made and hashed',
    statements: 1,
    roundTrips: 1,
    crypto: { ...REQUEST_ID, createHash: 5, timingSafeEqual: 1, randomBytes: 2 },
  },
  'ingestion, 1 delivery': {
    counts:
      'POST /internal/v1/events, live mode, 1 subscribed webhook: 1 autocommitted call of ' +
      'svc_record_sequenced_events (the event, its sequence number and its deliveries) + 1 `select ' +
      'pg_notify` waking the other processes\u2019 workers (signal.ts: one per burst). Crypto: the internal ' +
      'token and the expected one digested, compared in constant time',
    statements: 2,
    roundTrips: 2,
    crypto: { ...REQUEST_ID, createHash: 2, timingSafeEqual: 1 },
  },
  'ingestion, 3 deliveries': {
    counts: 'the same for 3 subscribed webhooks: a delivery costs no statement of its own',
    statements: 2,
    roundTrips: 2,
    crypto: { ...REQUEST_ID, createHash: 2, timingSafeEqual: 1 },
  },
  'ingestion, test mode, 1 delivery': {
    counts: 'a test-mode event: as in live mode + 1 `select pg_notify` for `svc listen` streams',
    statements: 3,
    roundTrips: 3,
    crypto: { ...REQUEST_ID, createHash: 2, timingSafeEqual: 1 },
  },
  'delivery cycle, 1 delivery': {
    counts:
      'one cycle of the delivery worker: 1 plain claim (claim-deliveries.repository.ts) + the attempt, signed ' +
      '(1 HMAC; the opened signing key cached) + 1 statement recording the outcomes (record-outcomes); no ' +
      'BEGIN/COMMIT',
    statements: 2,
    roundTrips: 2,
    crypto: { createHmac: 1 },
  },
  'delivery cycle, 10 deliveries': {
    counts: 'the same cycle for 10: still 2 statements, 0.2 per delivery; 1 HMAC per delivery',
    statements: 2,
    roundTrips: 2,
    crypto: { createHmac: 10 },
  },
  'audit page': {
    counts:
      'GET /api/v1/merchant/developer/logs (50 entries), session as Bearer: the session check + 1 SELECT ' +
      'of the page',
    statements: 2,
    roundTrips: 2,
    crypto: { ...REQUEST_ID, createHash: 1, timingSafeEqual: 1 },
  },
  'request-log flush, 1,000 calls': {
    counts:
      "the recorder's batch of 1,000 entries (record.repository.ts): BEGIN + COPY of the entries + 1 INSERT " +
      '... ON CONFLICT of the day counters + COMMIT, on pg on the module\u2019s own connection',
    statements: 4,
    roundTrips: 5,
    crypto: {},
    pglite: {
      roundTrips: 4,
      why: "COPY from PGlite's /dev/blob device takes its rows with the query; COPY FROM STDIN waits for the server first",
    },
  },
  'session check': {
    counts:
      'any /api/v1/merchant/... call with a session (here one that the route then refuses, 400, so that only ' +
      'the check runs): 1 SELECT of the session with its membership\u2019s role; the token hashed and compared ' +
      'in constant time with the stored hash; its use noted in memory',
    statements: 1,
    roundTrips: 1,
    crypto: { ...REQUEST_ID, createHash: 1, timingSafeEqual: 1 },
  },
} as const satisfies Record<string, Budget>;

export type CostPath = keyof typeof BUDGETS;

/** The budget of a path on a database. */
export function budgetOf(path: CostPath, db: 'pg' | 'pglite'): Figures {
  const budget: Budget = BUDGETS[path];
  const { statements, roundTrips, crypto } = budget;
  if (db === 'pg' || !budget.pglite) return { statements, roundTrips, crypto };
  const { why: _why, ...differs } = budget.pglite;
  return { statements, roundTrips, crypto, ...differs };
}

/**
 * Bytes V8 allocates per public read (`GET .../supported-countries` with a secret key through `app.inject`,
 * light-my-request's fake request and response included), over 10,000 calls in one process after 1,000 to
 * warm up. A ceiling, not an exact figure: today's plus 20%. Today's, three runs each after the other files of
 * test/cost: PostgreSQL 45,285, 45,297 and 46,548 bytes; PGlite 45,601, 45,648 and 45,650. The read sends no
 * statement, so the drivers do not differ. After the one onRequest step (docs/decisions/0220-public-contract-in-one-step.md),
 * one run each on a loaded host: PostgreSQL 43,077, PGlite 43,273.
 */
export const ALLOCATION = {
  path: 'public read',
  calls: 10_000,
  today: 43_300,
  margin: 1.2,
  ceiling: Math.round(43_300 * 1.2),
} as const;
