import { defineConfig } from 'vitest/config';

// Every test file runs twice: on embedded PGlite and on a throwaway PostgreSQL cluster. Tests that need
// several operating-system processes sharing one database (test/system) run on PostgreSQL only: PGlite is
// an in-process database that a second process cannot open.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/system/**', 'test/e2e/**'],
          env: { SVC_TEST_DB: 'pglite' },
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
    ],
  },
});
