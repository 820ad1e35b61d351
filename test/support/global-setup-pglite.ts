// Vitest global setup of the projects on PGlite: the migrated template, built once for the run and dumped to
// a file that every test database starts from (test/support/service.ts). Building it (initdb, then the
// migrations) in each test file took 2-4 s, and a clone of it (a dump, then a start from the dump) 2 s more
// per service; a start from the run's dump alone takes about 1 s.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase, openPglite } from '../../src/db/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite data directory, as a tar file (PGlite's dumpDataDir). */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pglite-'));
  const file = join(dir, 'template.tar');
  const pglite = await openPglite(undefined);
  const database = await openDatabase({ pglite }); // migrates
  // uncompressed: gzip makes the 40 MB file 5 MB, and each start half a second slower
  const dump = await pglite.dumpDataDir('none');
  await database.close();
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
