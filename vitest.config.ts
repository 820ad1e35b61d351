import { defineConfig } from 'vitest/config';

// Every test file runs twice: on embedded PGlite and on a throwaway PostgreSQL cluster. Tests that need
// several operating-system processes sharing one database (test/system) run on PostgreSQL only: PGlite is
// an in-process database that a second process cannot open.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at a time on the two-core CI machine: most of a file's time is spent waiting on PostgreSQL,
    // child processes, browsers and timers.
    maxWorkers: 2,
    // A worker runs file after file of its project in one process: no module-level state is left in src/ (a
    // lint rule), the tests mock nothing, and each file's services and databases are its own. A process per
    // file paid every file's imports again.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/system/**', 'test/e2e/**'],
          env: { SVC_TEST_DB: 'pglite' },
          globalSetup: ['test/support/global-setup-pglite.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'pg',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          env: { SVC_TEST_DB: 'pg' },
          globalSetup: ['test/support/global-setup-pg.ts'],
        },
      },
      {
        // The dashboard in a real browser (Debian's Chromium) against a listening service on PGlite, in the
        // same two workers as the database projects; a worker launches one Chromium for its files.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          env: { SVC_TEST_DB: 'pglite' },
          globalSetup: ['test/support/global-setup-pglite.ts', 'test/e2e/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A loaded CI machine renders slower than a laptop: polls wait as long as a browser action (10 s).
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
