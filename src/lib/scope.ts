// The tenant a use case acts for, and the one way a list is paged. Every merchant resource belongs to one
// merchant and one mode, so every tenant-scoped service takes `(ctx, scope, input)` and every query filters by
// both. Lists are newest first by id (ids begin with their creation time, src/lib/ids.ts), so `starting_after`
// is a keyset bound and a page is one index range scan, however deep; `count` is the total over all pages
// (API.md section 1, Pagination).
import type { Mode } from './credentials.ts';

export interface Scope {
  readonly merchantId: string;
  readonly mode: Mode;
}

export interface PageInput {
  /** 1-200, the route's schema checks it. */
  readonly limit: number;
  /** An item id: the page continues after it (older ids). */
  readonly startingAfter?: string | undefined;
}

/** The list envelope of API.md section 1, as the routes answer it under `data`. */
export interface Page<T> {
  readonly items: T[];
  readonly count: number;
  readonly has_more: boolean;
  readonly next_cursor: string | null;
}

/** What a repository supplies: its rows and its count, each with its own filter already applied. */
export interface PageSource<R> {
  /** At most `take` rows newest first by id, older than `startingAfter` when given. */
  rows(startingAfter: string | undefined, take: number): Promise<R[]>;
  /** Every row the filter matches, over all pages (a counter table may answer it rather than a scan). */
  count(): Promise<number>;
}

/**
 * One page: one row more than the limit is read to learn `has_more` without a second query, and the count
 * runs alongside the page rather than after it.
 */
export async function paginate<R extends { readonly id: string }>(
  input: PageInput,
  source: PageSource<R>,
): Promise<Page<R>> {
  const [rows, count] = await Promise.all([
    source.rows(input.startingAfter, input.limit + 1),
    source.count(),
  ]);
  return toPage(input, rows, count);
}

/** The page of `rows`, read with one row more than the limit, and the count over all pages. */
export function toPage<R extends { readonly id: string }>(
  input: PageInput,
  rows: R[],
  count: number,
): Page<R> {
  const hasMore = rows.length > input.limit;
  const items = hasMore ? rows.slice(0, input.limit) : rows;
  return { items, count, has_more: hasMore, next_cursor: hasMore ? items[items.length - 1]!.id : null };
}

/** The same page with each item presented; the cursor stays the row's id. */
export function mapPage<R, T>(page: Page<R>, present: (row: R) => T): Page<T> {
  return { ...page, items: page.items.map(present) };
}
