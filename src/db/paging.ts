// The one way a list reads its page (src/lib/scope.ts says what a page is): newest first by id, `starting_after`
// a keyset bound on the primary key, and the count of every page on the same filter.
import { sql, type SelectQueryBuilder } from 'kysely';
import { paginate, type Page, type PageInput } from '../lib/scope.ts';

/**
 * A page of `selected`, which is `filtered` (the tenant and the list's filters) with its columns chosen, and
 * perhaps joined to what only the page's rows need; `filtered` alone is counted. `idColumn` names the id
 * where a join makes `id` ambiguous.
 */
export function pageById<DB, TB extends keyof DB, DS, TS extends keyof DS, O extends { readonly id: string }>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  selected: SelectQueryBuilder<DS, TS, O>,
  input: PageInput,
  idColumn = 'id',
): Promise<Page<O>> {
  const id = sql.ref<string>(idColumn);
  return paginate(input, {
    rows: async (after, take) =>
      (await (after ? selected.where(id, '<', after) : selected)
        .orderBy(id, 'desc')
        .limit(take)
        .execute()) as O[],
    count: async () => {
      const row = await filtered.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
      return Number((row as { n: string }).n);
    },
  });
}
