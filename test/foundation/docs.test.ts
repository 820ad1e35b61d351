// What docs/architecture.md says of the modules and their tables, checked against the code so that it cannot
// drift again silently: the module table against the modules src/modules.ts creates and the tables each
// module's `*.table.ts` declares (and every table the migrations make has an owner there); the migrations
// against "each touches the tables of one owner" (0001-0003 excepted, docs/decisions.md, One wiring); and the
// reads of another owner's table against the ones the architecture names. Read from the sources and one
// migrated database: a new module, table, migration or join that strays fails here, not in review.
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const ROOT = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const ARCHITECTURE = read('docs/architecture.md');

// The migrations that create the tables of several owners, from before the rule (docs/decisions.md).
// 0100 was written when users and merchants had one owner, 0004-0092 of these when one webhooks module owned
// what webhooks, outbox and delivery own now; a migration that has run is never rewritten.
const SEVERAL_OWNERS = [
  '0001_foundation.sql',
  '0002_api_keys_carts.sql',
  '0003_oauth.sql',
  '0004_webhooks.sql',
  '0010_events_health_recovery.sql',
  '0019_one_outbox_write.sql',
  '0041_app_webhooks.sql',
  '0060_pace_sequence_order.sql',
  '0081_event_request_ids.sql',
  '0092_outbox_apps_sequence.sql',
  '0100_sign_in_security.sql',
];

/** The module table of architecture.md: each row's module, whether it is created, and the tables it owns. */
function documentedModules() {
  const lines = ARCHITECTURE.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| Module (creation order)'));
  expect(start).toBeGreaterThan(-1);
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((c) => c.trim());
    const [name, created] = /^(\S+)( \(not created\))?$/.exec(cells[1]!)!.slice(1);
    const tables = [...cells[4]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    rows.push({ name: name!, created: created === undefined, tables });
  }
  return rows;
}

/** Each module's tables as its `*.table.ts` files declare them (the keys of its `…Tables` interface). */
function declaredTables(): Map<string, string[]> {
  const owned = new Map<string, string[]>();
  for (const file of globSync('src/modules/*/*.table.ts', { cwd: ROOT })) {
    const module = file.split('/')[2]!;
    const body = /export interface \w+Tables \{([^}]*)\}/.exec(read(file))?.[1] ?? '';
    const tables = [...body.matchAll(/^\s*(\w+):/gm)].map((m) => m[1]!);
    owned.set(module, [...(owned.get(module) ?? []), ...tables]);
  }
  return owned;
}

const OWNED = declaredTables();
const OWNER = new Map([...OWNED].flatMap(([module, tables]) => tables.map((t) => [t, module] as const)));

/** The known tables a text names after one of `words` (SQL keywords), each once. */
function tablesAfter(text: string, words: string): string[] {
  const found = [...text.matchAll(new RegExp(`\\b(?:${words})\\s+([a-z_]+)\\b`, 'gi'))].map((m) => m[1]!);
  return [...new Set(found.filter((t) => OWNER.has(t)))];
}

const WRITES = [
  'create table(?: if not exists)?',
  'alter table(?: if exists)?(?: only)?',
  'drop table(?: if exists)?',
  'create(?: unique)? index(?: concurrently)?(?: if not exists)?(?: \\w+)? on(?: only)?',
  'create trigger \\w+ (?:before|after) [a-z ]+ on',
  'insert into',
  'update',
  'delete from',
].join('|');
const READS = 'from|join';

function migrations() {
  return globSync('src/db/migrations/*.sql', { cwd: ROOT })
    .sort()
    .map((file) => ({
      name: file.split('/').at(-1)!,
      // without comments: a table named in a sentence is not one the migration touches
      text: read(file).replace(/--.*$/gm, ''),
    }));
}

const ownersOf = (tables: readonly string[]) => [...new Set(tables.map((t) => OWNER.get(t)!))].sort();

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

it('lists the modules in the order src/modules.ts creates them, with the tables each declares', async () => {
  const documented = documentedModules();
  expect(documented.filter((m) => m.created).map((m) => m.name)).toEqual(service.modules.map((m) => m.name));
  for (const m of documented) {
    expect(read(`src/modules/${m.name}/index.ts`), m.name).toBeTruthy();
    expect(m.tables.toSorted(), `the tables of ${m.name}`).toEqual((OWNED.get(m.name) ?? []).toSorted());
  }
  // every table the migrations made is owned by a module the table names
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      and c.relname <> 'schema_migrations'`.execute(service.ctx.db);
  expect(rows.map((r) => r.name).toSorted()).toEqual(documented.flatMap((m) => m.tables).toSorted());
});

it('has each migration touch the tables of one owner, but those before the rule', () => {
  const several = migrations()
    .map((m) => ({ name: m.name, owners: ownersOf(tablesAfter(m.text, WRITES)) }))
    .filter((m) => m.owners.length !== 1);
  expect(several.map((m) => m.name)).toEqual(SEVERAL_OWNERS);
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain('0001-0003 create the tables of several owners');
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain('0100 touches `merchants` and `users`');
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain(
    'The same holds for 0004, 0010, 0019, 0041, 0060, 0081 and 0092',
  );
});

it('reads another owner’s table only where architecture.md says so, and writes none', () => {
  const crossing = new Set<string>();
  const note = (module: string, verb: 'reads' | 'writes', tables: readonly string[]) => {
    for (const t of tables) if (OWNER.get(t) !== module) crossing.add(`${module} ${verb} ${t}`);
  };
  for (const file of globSync('src/modules/*/**/*.ts', { cwd: ROOT })) {
    if (file.endsWith('.table.ts')) continue;
    // without comment lines, whose backticks would pair with a template's
    const source = read(file).replace(/^\s*(\/\/|\/\*|\*).*$/gm, '');
    const kysely = (methods: string) =>
      [...source.matchAll(new RegExp(`\\.(?:${methods})\\(\\s*'([a-z_]+)`, 'g'))]
        .map((m) => m[1]!)
        .filter((t) => OWNER.has(t));
    // the text of SQL written out: tagged `sql` templates, and template strings that read like a statement
    const statements = [...source.matchAll(/(sql(?:<[^`]*?>)?)?`([^`]*)`/g)]
      .filter((m) => m[1] !== undefined || /\b(select|insert into|delete from)\b/i.test(m[2]!))
      .map((m) => m[2]!)
      .join('\n');
    const module = file.split('/')[2]!;
    note(module, 'reads', [
      ...kysely('selectFrom|innerJoin|leftJoin|rightJoin|fullJoin'),
      ...tablesAfter(statements, READS),
    ]);
    note(module, 'writes', [
      ...kysely('insertInto|updateTable|deleteFrom|mergeInto'),
      ...tablesAfter(statements, WRITES),
    ]);
  }
  // a migration of one owner (its functions included) reads for that owner
  for (const m of migrations()) {
    const owners = ownersOf(tablesAfter(m.text, WRITES));
    if (owners.length === 1) note(owners[0]!, 'reads', tablesAfter(m.text, READS));
  }

  const paragraph = ARCHITECTURE.split('\n\n').find((p) => p.includes('Reads across owners'));
  expect(paragraph).toBeDefined();
  const documented = [
    ...paragraph!.replace(/\s+/g, ' ').matchAll(/([a-z-]+) reads ((?:`[a-z_]+`(?:, | and )?)+)/g),
  ].flatMap((m) => [...m[2]!.matchAll(/`([a-z_]+)`/g)].map((t) => `${m[1]} reads ${t[1]}`));
  expect([...crossing].toSorted()).toEqual(documented.toSorted());
});
