// The docs checked against the code, so that they cannot drift again silently. What docs/architecture.md says
// of the modules and their tables: the module table against the modules src/modules.ts creates and the tables
// each module's `*.table.ts` declares (and every table the migrations make has an owner there); the
// migrations against "each touches the tables of one owner" (0001-0003 excepted,
// docs/decisions/0013-migrations-one-ordered-history.md); and the reads of another owner's table against the
// ones the architecture names. Then what every doc names: commands, variables, routes and files (below). Read
// from the sources, the app's route table and one migrated database: a new module, table, migration or join
// that strays, or a renamed command, variable or route or a deleted file a doc still names, fails here.
import { existsSync, globSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const ROOT = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const ARCHITECTURE = read('docs/architecture.md');

// The migrations that create the tables of several owners, from before the rule
// (docs/decisions/0013-migrations-one-ordered-history.md). 0100 was written when users and merchants had one
// owner, 0004-0092 of these when one webhooks module owned what webhooks, outbox and delivery own now; a
// migration that has run is never rewritten.
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
  // the outbox's function, which inserts deliveries and counts what the filters refused (0134, 0145)
  '0141_outbox_payload_filters.sql',
  // replays' table and the deliveries' `replay` parking, when the delivery module owned both (decision 0200)
  '0142_webhook_replays.sql',
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
  // One that touches none (0171 redefines a function only) keeps the rule too.
  const several = migrations()
    .map((m) => ({ name: m.name, owners: ownersOf(tablesAfter(m.text, WRITES)) }))
    .filter((m) => m.owners.length > 1);
  expect(several.map((m) => m.name)).toEqual(SEVERAL_OWNERS);
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain('0001-0003 create the tables of several owners');
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain('0100 touches `merchants` and `users`');
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain(
    'The same holds for 0004, 0010, 0019, 0041, 0060, 0081 and 0092',
  );
  expect(ARCHITECTURE.replace(/\s+/g, ' ')).toContain('0142 touches `deliveries` and `webhook_replays`');
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

// What the docs name, checked against what the code has: `npm run X` against package.json's scripts, `svc …`
// against the CLI's command table (and each option against that command's), SVC_* and DATABASE_* variables
// against those src/config.ts reads (or a test, bench, script or example reads, for theirs), /api,
// /internal and /.well-known paths (with their method, when one is named) against the app's route table,
// and file paths against the disk. A renamed variable, command or route, or a deleted file, named in a doc
// fails here. The Superseded part of a decision record names what was replaced, and is not checked.
const DOCS = [
  'README.md',
  ...globSync('docs/*.md', { cwd: ROOT }),
  ...globSync('docs/decisions/*.md', { cwd: ROOT }),
  ...globSync('docs/guides/*.md', { cwd: ROOT }),
].toSorted();

/** A doc's text, without the Superseded section of a decision record. */
function docText(file: string): string {
  return read(file).replace(/^## Superseded\n[\s\S]*?(?=^## |(?![\s\S]))/m, '');
}

/** The code of a doc: its code spans and fenced blocks, each as one string. */
function codeOf(text: string): string[] {
  const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  return [...blocks, ...[...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)];
}

/** Each doc's findings of one kind that fail `ok`, as "file: name". */
function strays(
  find: (text: string, file: string) => Iterable<string>,
  ok: (name: string, file: string) => boolean,
) {
  return DOCS.flatMap((file) =>
    [...new Set(find(docText(file), file))].filter((n) => !ok(n, file)).map((n) => `${file}: ${n}`),
  );
}

it('names only npm scripts that package.json has', () => {
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: object }).scripts);
  const named = (text: string) =>
    [...text.matchAll(/\bnpm (?:run (?:-- )?([a-z][\w:-]*)|(start|test)\b)/g)].map((m) => m[1] ?? m[2]!);
  expect(strays(named, (s) => scripts.includes(s))).toEqual([]);
});

it('names only svc commands, and options, that the CLI has', async () => {
  const { COMMANDS } = await import('../../src/cli/commands.ts');
  const commands = new Map(COMMANDS.map((c) => [c.name, Object.keys(c.options ?? {})]));
  const groups = new Set(
    COMMANDS.map((c) => c.name.split(' '))
      .filter((w) => w.length > 1)
      .map((w) => w[0]!),
  );
  // the dispatcher's own words (src/cli/svc.ts)
  const own = new Set(['help', 'completion', '--help', '-h', '--version', '-V', 'version']);
  const named = (text: string) =>
    codeOf(text).flatMap((code) =>
      // `svc` that starts a line (or a span) or follows `npx`: a command, not the word in a sentence or a string
      [
        ...code.matchAll(
          /(?:^[ \t]*(?:\$ )?|\bnpx )svc ((?:--?)?[a-z][a-z-]*)((?: [a-z][a-z-]*)?)([^\n|;&)]*)/gm,
        ),
      ].map(
        (m) =>
          `svc ${m[1]!}${m[2]!}${[...m[3]!.matchAll(/(?:^|[\s[])(--[a-z][a-z-]*)/g)].map((o) => ` ${o[1]}`).join('')}`,
      ),
    );
  const known = (found: string) => {
    const [, first, ...rest] = found.split(' ');
    const options = rest.filter((w) => w.startsWith('--'));
    const second = rest.find((w) => !w.startsWith('--'));
    if (own.has(first!)) return true;
    const name = second !== undefined && commands.has(`${first} ${second}`) ? `${first} ${second}` : first!;
    if (!commands.has(name))
      return groups.has(first!) && second === undefined && options.every((o) => o === '--help');
    // a second word that is no subcommand is an argument (`svc audit verify FILE`, lower-case only in prose)
    return options.every((o) => o === '--help' || commands.get(name)!.includes(o.slice(2)));
  };
  expect(strays(named, known)).toEqual([]);
});

/** The environment variables a file reads: `env.NAME`, `process.env.NAME`, and (`named`) a 'NAME' it passes on. */
const readsOf = (file: string, named = false) =>
  [
    ...read(file).matchAll(
      named
        ? /(?:\benv\.|\bprocess\.env\.|')((?:SVC|DATABASE)_[A-Z0-9_]*[A-Z0-9])\b/g
        : /(?:\benv\.|\bprocess\.env\.)((?:SVC|DATABASE)_[A-Z0-9_]*[A-Z0-9])\b/g,
    ),
  ].map((m) => m[1]!);

it('names only environment variables that src/config.ts reads (or a test, bench, script or example), and all of its own', () => {
  // src/config.ts and the parsers it hands the environment (config-values.ts, config-replicas.ts)
  const config = new Set(
    ['src/config.ts', 'src/config-values.ts', 'src/config-replicas.ts'].flatMap((f) => readsOf(f, true)),
  );
  const elsewhere = new Set(
    globSync(['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'examples/**/*.ts'], { cwd: ROOT }).flatMap(
      (f) => readsOf(f),
    ),
  );
  const named = (text: string) =>
    [...text.matchAll(/\b((?:SVC|DATABASE)_[A-Z0-9_]*[A-Z0-9])(_\*)?(?![\w])/g)].map(
      (m) => m[1]! + (m[2] ?? ''),
    );
  const known = (name: string) =>
    name.endsWith('_*')
      ? [...config].some((v) => v.startsWith(name.slice(0, -1)))
      : config.has(name) || elsewhere.has(name);
  expect(strays(named, known)).toEqual([]);
  // and the README's configuration table lists every one src/config.ts reads
  const readme = read('README.md');
  const table = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  expect([...config].filter((v) => !table.includes(`\`${v}\``))).toEqual([]);
});

it('names only routes that the app serves, by the method named', () => {
  const routes = service.app.routeTable;
  const named = (text: string) =>
    [
      ...text.matchAll(
        /(?:\b(GET|POST|PUT|PATCH|DELETE) )?`?((?:https?:\/\/[\w.:$[\]-]*)?\/(?:api|internal|\.well-known)\/[^\s`'"(),;|\]]*)/g,
      ),
    ].map((m) => `${m[1] ? `${m[1]} ` : ''}${m[2]!.replace(/^https?:\/\/[^/]*/, '')}`);
  // A path with a method is one route; without, a route or the start of some (`/api/public/v1/...`, a mount).
  // `{id}`, `:id`, `<name>`, `$VAR` and `...` stand for any one segment.
  const served = (found: string) => {
    const space = found.indexOf(' ');
    const method = space < 0 ? undefined : found.slice(0, space);
    const parts = found
      .slice(space + 1)
      .replace(/[?#].*$/, '')
      .replace(/\/(\.\.\.|\*)$/, '')
      .replace(/[.:]$/, '')
      .replace(/\/$/, '')
      .split('/');
    const wild = (p: string) => /[{<$:*]|\.\.\./.test(p);
    return routes.some((r) => {
      const route = r.url.split('/');
      if (method === undefined ? route.length < parts.length : route.length !== parts.length) return false;
      if (method !== undefined && !r.methods.has(method)) return false;
      return parts.every((p, i) => p === route[i] || wild(p) || (route[i]!.startsWith(':') && p !== ''));
    });
  };
  expect(strays(named, served)).toEqual([]);
});

it('names only files that exist', () => {
  // made by a run or a start, never committed
  const generated =
    /^(test-results|node_modules|\.svc-data|bench\/results|web\/dist|clients\/typescript\/dist)\b/;
  const rooted = (text: string) => [
    ...[
      ...text.matchAll(
        /(?<![\w./$-])((?:src|test|bench|scripts|docs|web|bin|clients|examples|\.ci)\/[\w./-]*[\w/])/g,
      ),
    ].map((m) => m[1]!),
    ...[
      ...text.matchAll(
        /`((?:package|tsconfig)\.json|[\w.-]+\.config\.(?:ts|js)|\.[\w.-]+\.(?:cjs|yaml)|redocly\.yaml)`/g,
      ),
    ].map((m) => m[1]!),
  ];
  const exists = (path: string) =>
    generated.test(path) || globSync(path.replace(/\/$/, ''), { cwd: ROOT }).length > 0;
  expect(strays(rooted, exists)).toEqual([]);

  // a file named alone, by its name: some file of the repository has it
  const dirs = [
    'src',
    'test',
    'bench',
    'scripts',
    'docs',
    'web/src',
    'bin',
    'clients/typescript/src',
    'examples',
    '.ci',
  ];
  const files = new Set([
    ...readdirSync(ROOT),
    ...globSync(
      dirs.map((d) => `${d}/**/*`),
      { cwd: ROOT },
    ).map((f) => f.split('/').at(-1)!),
  ]);
  const bare = (text: string) =>
    codeOf(text)
      .filter((code) => /^[\w.-]+\.(?:ts|tsx|js|cjs|sql|md)$/.test(code))
      .concat(
        [
          ...text.matchAll(/(?<![\w/.`-])([\w-]+\.(?:repository|service|routes|schemas|table|test)\.ts)\b/g),
        ].map((m) => m[1]!),
      );
  expect(strays(bare, (name) => files.has(name))).toEqual([]);

  // links between docs, resolved from the doc's folder
  const links = (text: string, file: string) =>
    [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((l) => !/^[a-z]+:/.test(l) && !l.startsWith('/'))
      .map((l) => join(dirname(file), l));
  expect(strays(links, (path) => existsSync(join(ROOT, path)))).toEqual([]);
});
