// One signature for every list a module's service offers (src/lib/scope.ts): `(ctx, scope, input)`, after the
// module's state when the list needs it (`listKeys(keys, ctx, scope, input)`), as every stateful service of
// the house takes it first. Read from the source: a new list that strays fails here, not in review.
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

it('gives every service list the signature (ctx, scope, input)', () => {
  const lists: string[] = [];
  const problems: string[] = [];
  for (const file of globSync('src/modules/**/*.service.ts', { cwd: ROOT })) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const m of source.matchAll(/export async function (list\w*)\(([^)]*)\)/g)) {
      const params = m[2]!
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      lists.push(m[1]!);
      const [ctx, scope, input, ...rest] = params.at(0)?.startsWith('ctx:') ? params : params.slice(1);
      const ok =
        ctx === 'ctx: Context' &&
        scope === 'scope: Scope' &&
        (input === undefined || input.startsWith('input: ')) &&
        rest.length === 0;
      if (!ok) problems.push(`${file}: ${m[1]}(${params.join(', ')})`);
    }
  }
  expect(problems).toEqual([]);
  // the lists of the merchant and public interfaces, so that the check is known to read them
  expect(lists).toEqual(
    expect.arrayContaining([
      'listApps',
      'listKeys',
      'listWebhooks',
      'listDeliveries',
      'listMerchantEvents',
      'listLogs',
      'listConnections',
      'listStores',
    ]),
  );
});
