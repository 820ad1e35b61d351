// What a piece of work sends to the database, counted where it leaves the process: the cost budgets of the
// test suite (test/cost/budgets.ts) are written in these counts. Nothing of it runs unless a test installs it:
// the drivers' prototypes are left untouched, so the production path pays nothing, not even a test of a flag.
//
// Counted at the drivers rather than through Kysely's `log` option, which wraps the connections Kysely makes
// (and so does see BEGIN and COMMIT, which its drivers send through the same `executeQuery`), but not what
// goes around Kysely: the oauth-token module's pool of named prepared statements (its pool.ts), the request log's
// COPY on a pool of its own (record.repository.ts), the bus's LISTEN on its own connection (bus.ts). Every
// one of those is a `pg.Client`, and on PGlite everything goes through the one instance's `query` and `exec`
// (`listen` too): wrapping `pg.Client.prototype.query` and PGlite's `query` and `exec` sees all of it, the
// pools that modules make for themselves from the configuration included, which an option of openDatabase
// could not reach. The wrap is process-wide: the caller keeps what is its own (test/cost/meter.ts keeps what
// runs in the async context of the operation it measures).
//
// A statement is one SQL command the server executes: a query, BEGIN, COMMIT, ROLLBACK, SAVEPOINT, LISTEN,
// `select pg_notify(...)`, a COPY whatever its rows. A round trip is one wait for the server's answer before
// the client can go on: one per query on the wire (the extended protocol's Parse/Bind/Execute/Sync goes in
// one write and waits for one ReadyForQuery; a simple-protocol text of several statements is one round trip
// and as many statements), plus one for COPY FROM STDIN, whose data is sent only after the server's
// CopyInResponse. On PGlite a round trip is one call into its backend (`query`: one statement, extended
// protocol; `exec`: the simple protocol), and a COPY from its `/dev/blob` device takes its data with the
// query: one. A pipelined client (pg's `pipeline` option, which nothing here sets) would count a round trip
// per query, as each query still has its own Sync.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface SentQuery {
  readonly driver: 'pg' | 'pglite';
  readonly text: string;
  readonly statements: number;
  readonly roundTrips: number;
}

/** Called once per query sent, synchronously, in the async context of whoever sent it. */
export type QuerySink = (sent: SentQuery) => void;

const COPY_FROM_STDIN = /^\s*copy\b[^;]*\bfrom\s+stdin\b/i;

/**
 * SQL statements in a simple-protocol text: the non-empty parts between semicolons outside quotes, quoted
 * identifiers, dollar quotes and comments.
 */
export function statementsIn(text: string): number {
  let count = 0;
  let pending = false;
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === ';') {
      if (pending) count++;
      pending = false;
      i++;
    } else if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(text, i);
    } else if (c === "'" || c === '"') {
      // An E'...' string (the E not the last letter of a name) takes backslash escapes.
      const escapes = c === "'" && /[Ee]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i - 2] ?? '');
      i = skipQuoted(text, i, c, escapes);
      pending = true;
    } else if (c === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? text.length : end + tag[0].length;
      } else i++;
      pending = true;
    } else {
      if (!/\s/.test(c)) pending = true;
      i++;
    }
  }
  return count + (pending ? 1 : 0);
}

/** Past a quoted literal or identifier starting at `start`; a doubled (or escaped) quote stays inside. */
function skipQuoted(text: string, start: number, quote: string, escapes: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    if (escapes && text[i] === '\\') i += 2;
    else if (text[i] === quote) {
      if (text[i + 1] !== quote) return i + 1;
      i += 2;
    } else i++;
  }
  return i;
}

/** Past a block comment starting at `start` (they nest in PostgreSQL). */
function skipBlockComment(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (text.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return i;
}

/** What `pg.Client#query(config, values)` sends: `config` is text, a query config, or a submittable (COPY). */
function pgQuery(config: unknown, values: unknown): SentQuery {
  const object = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
  const text = typeof config === 'string' ? config : typeof object.text === 'string' ? object.text : '';
  const params = Array.isArray(values) ? values : object.values;
  // pg's Query#requiresPreparation: a name, parameters or a row limit take the extended protocol.
  const extended =
    object.queryMode === 'extended' ||
    Boolean(object.name) ||
    Boolean(object.rows) ||
    (Array.isArray(params) && params.length > 0);
  return {
    driver: 'pg',
    text,
    statements: extended ? 1 : statementsIn(text),
    roundTrips: COPY_FROM_STDIN.test(text) ? 2 : 1,
  };
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Puts a wrapper of `name` on `target` itself; the answer puts back what was there (or nothing). */
function wrap(target: object, name: string, wrapper: (original: Method) => Method): () => void {
  const own = Object.getOwnPropertyDescriptor(target, name);
  const original = (target as Record<string, Method>)[name];
  if (typeof original !== 'function') throw new Error(`${name} is not a method to count`);
  Object.defineProperty(target, name, {
    value: wrapper(original),
    configurable: true,
    writable: true,
  });
  return () => {
    if (own) Object.defineProperty(target, name, own);
    else delete (target as Record<string, unknown>)[name];
  };
}

/** Reports every query that any `pg.Client` or PGlite instance of the process sends, until the answer is called. */
export function countQueries(sink: QuerySink): () => void {
  const restores = [
    wrap(
      pg.Client.prototype,
      'query',
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          sink(pgQuery(args[0], args[1]));
          return original.apply(this, args);
        },
    ),
    wrap(
      PGlite.prototype,
      'query',
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          sink({ driver: 'pglite', text: String(args[0]), statements: 1, roundTrips: 1 });
          return original.apply(this, args);
        },
    ),
    wrap(
      PGlite.prototype,
      'exec',
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const text = String(args[0]);
          sink({ driver: 'pglite', text, statements: statementsIn(text), roundTrips: 1 });
          return original.apply(this, args);
        },
    ),
  ];
  return () => {
    for (const restore of restores.reverse()) restore();
  };
}
