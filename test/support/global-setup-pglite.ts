// Vitest global setup of the projects on PGlite: the migrated template, built once for the run and dumped to
// a file that every test database starts from (test/support/service.ts). Each test file built its own
// (initdb, then the migrations: 5-10 s on a loaded machine), and each service cloned it (a dump, 0.3-0.5 s,
// then a start from the dump, 1.2-1.7 s).
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
  // uncompressed, 40 MB (gzip's 5 MB started no faster)
  const dump = await pglite.dumpDataDir('none');
  await database.close();
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
