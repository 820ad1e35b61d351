// The outbox's functions as src/modules/outbox/outbox.sql shows them are the ones the migrations make: a
// migrated database (PostgreSQL, and PGlite in the pglite project) prints each function of the outbox
// (`pg_get_functiondef`) exactly as the file holds it, and has no other `svc_` function (the ones an earlier
// migration made and a later one dropped stay dropped). The migrations stay as they ran; the file is where the
// current text is read, and this test keeps the two from drifting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const FILE = join(import.meta.dirname, '../../src/modules/outbox/outbox.sql');

/** Each definition of the file by function name: from its CREATE line to its closing `$function$`. */
function definitionsInFile(): Map<string, string> {
  const text = readFileSync(FILE, 'utf8');
  const found = [...text.matchAll(/^CREATE OR REPLACE FUNCTION public\.(\w+)\([\s\S]*?\$function\$(?=;)/gm)];
  return new Map(found.map((m) => [m[1]!, m[0]]));
}

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

it('holds each svc_ function of the migrated database as pg_get_functiondef prints it, and no other', async () => {
  const inFile = definitionsInFile();
  expect([...inFile.keys()].toSorted()).toEqual([
    'svc_payload_matches',
    'svc_record_sequenced_events',
    'svc_sequenced',
  ]);
  const { rows } = await sql<{ name: string; definition: string }>`
    select p.proname as name, pg_get_functiondef(p.oid) as definition
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'public' and p.proname like 'svc\\_%'
     order by p.proname`.execute(service.ctx.db);
  expect(rows.map((r) => r.name)).toEqual([...inFile.keys()].toSorted());
  for (const row of rows) {
    // pg_get_functiondef ends the definition with a line break; the file ends it with `;`.
    expect(inFile.get(row.name), row.name).toBe(row.definition.replace(/\n$/, ''));
  }
});
