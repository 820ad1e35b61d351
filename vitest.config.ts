import { defineConfig } from 'vitest/config';

// Every test file runs on a throwaway PostgreSQL cluster (the `pg` project). The files below run on embedded
// PGlite as well (the `pglite` project): those about the embedded path, and those that run the statements of
// the repositories, so that every repository statement the suite runs also runs on PGlite at least once
// (`node scripts/pglite-coverage.ts` checks it, with the browser tests, whose services are on PGlite too).
// The rest (the HTTP edge, limits, OAuth client libraries, commands, guides, pure units) runs on PostgreSQL
// only. docs/decisions/0020-every-test-on-postgresql-some-on-pglite-too.md.
const ON_PGLITE_TOO = [
  // the embedded path: data directory, its lock, the one connection, the in-process bus
  'test/cli/data-dir-lock.test.ts', // one process per data directory, the lock named to the second
  'test/cli/merchant-create.test.ts', // a command opening, migrating and writing a data directory
  'test/lib/bus-cache.test.ts', // notifications on PGlite's own connection
  'test/lib/bus-cache-channels.test.ts', // two channels on that connection
  'test/api-keys/invalidation.test.ts', // two services on one PGlite, as two processes on one database
  'test/oauth/shared.test.ts', // a revocation crossing two services on one PGlite
  'test/foundation/failures.test.ts', // what a client sees when the embedded driver is gone
  'test/security/edge-input.test.ts', // text a database cannot store (NUL, lone surrogates, year 0)
  // the statements of each repository
  'test/api-keys/api-keys.test.ts', // api-keys
  'test/audit/audit-writer.test.ts', // audit: entries, guard, counters
  'test/audit/logs.test.ts', // audit: pages, filters, counts
  'test/audit/export.test.ts', // audit: the export's stream
  'test/public/carts.test.ts', // carts
  'test/public/abandonment.test.ts', // carts: the abandonment sweep, by services sharing a database
  'test/journeys/idempotency.test.ts', // idempotency
  'test/merchants/auth.test.ts', // merchants and sessions
  'test/oauth/apps.test.ts', // oauth-apps
  'test/oauth/authorize.test.ts', // oauth: codes and consents
  'test/oauth/token.test.ts', // oauth: exchange, rotation, revocation
  'test/oauth/introspect.test.ts', // oauth: introspection's reads
  'test/oauth/refresh-siblings.test.ts', // oauth: siblings and tombstones
  'test/oauth/metadata-housekeeping.test.ts', // oauth: the purge of expired codes and tokens
  'test/oauth/client-credentials.test.ts', // oauth: app tokens, the app's installations and uninstall
  'test/oauth/private-key-jwt.test.ts', // oauth: JWT ids used once, and their purge
  'test/oauth/dpop.test.ts', // oauth: bound tokens, their look-up, proofs' ids
  'test/ops/master-key-rotation.test.ts', // webhooks' master keys: the re-sealing
  'test/webhooks/subscriptions.test.ts', // webhooks
  'test/webhooks/delivery.test.ts', // deliveries: claim and outcomes
  'test/webhooks/worker-lease.test.ts', // deliveries: leases given back
  'test/webhooks/lifecycle.test.ts', // deliveries: cancel, disable, purge
  'test/webhooks/recovery.test.ts', // events page, health, resend, recover
  'test/webhooks/app-webhooks.test.ts', // the app fan-out, installations, lifecycle and store.redact
  'test/webhooks/pace.test.ts', // deliveries: the claim's slots and parking, the outcomes' pace
  'test/webhooks/pace-law.test.ts', // deliveries: the pace law, step by step
  'test/webhooks/ordering.test.ts', // deliveries: keys held and released, resend and recover in order
  'test/webhooks/sequence.test.ts', // events: the sequence counters, after_sequence
  'test/webhooks/outbox-definition.test.ts', // the outbox's functions as migrated: src/modules/webhooks/outbox.sql
  'test/webhooks/payload-filters.test.ts', // the fan-out's filters and their counts
  'test/webhooks/health-counts.test.ts', // health: the deliveries' counts against a plain count
  'test/webhooks/replays.test.ts', // replays: the walk, its batches, the claim of what they queue
  'test/webhooks/attempts.test.ts', // deliveries: the attempts list, its filters and their plans
  'test/webhooks/resend-targets.test.ts', // deliveries of an event: where a resend may go
  'test/events/trigger.test.ts', // events of a test trigger
  'test/cli/listen.test.ts', // listeners and their streams
  'test/ops/metrics.test.ts', // the queue's depth
  'test/audit/chain.test.ts', // audit: the sealer's queue and seals
  'test/audit/checkpoint.test.ts', // audit: the chain's tip and the service's check of it
  'test/requests/request-logs.test.ts', // requests: the recorder's writes, pages, filters, day partitions
  'test/requests/app-requests.test.ts', // requests: the app owner's entries; oauth: tokens kept, retired, found
  'test/requests/body-fields.test.ts', // requests: the body's field names through the recorder's COPY
  'test/merchants/password-check.test.ts', // merchants: the password check's budget and its audit
  'test/members/invitations.test.ts', // members: invitations; merchants: users joining, switching
  'test/members/team.test.ts', // merchants: memberships, the last-owner lock, sessions and their batched uses
  'test/members/exposure.test.ts', // audit: the trail; keys, apps and webhooks read for exposure
  'test/members/former-members.test.ts', // members: removals remembered; identity: members without a factor
  'test/merchants/second-factors.test.ts', // merchants: TOTP, recovery codes, step-up, require-MFA
  'test/merchants/factor-budget.test.ts', // merchants: codes on the sign-in budgets, their audit
  'test/merchants/shared-budgets.test.ts', // identity: the sign-in budgets' rows, shared, kept and purged
  'test/merchants/passkeys.test.ts', // merchants: passkeys and WebAuthn challenges
  'test/members/roles.test.ts', // the role of every merchant route, walked on the embedded database too
  'test/members/migration.test.ts', // migration 0050: every user of the one-login era an owner
  // the cost budgets, counted at each driver
  'test/cost/meter.test.ts', // the counter: BEGIN/COMMIT, NOTIFY, LISTEN beside Kysely, the operation's own work
  'test/cost/budgets.test.ts', // each hot path's statements, round trips and crypto against test/cost/budgets.ts
  'test/cost/allocation.test.ts', // bytes per public read under its ceiling
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three files at a time on the two-core CI machine: many files wait more than they compute, and with two the
    // cores were idle 12% of the run (docs/decisions/0230-checks-beside-tests-and-shared-schema-code.md).
    maxWorkers: 3,
    // A worker runs file after file of its project in one process: no module-level state is left in src/ (a
    // lint rule), the tests mock nothing, and each file's services and databases are its own. A process per
    // file paid every file's imports again.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ON_PGLITE_TOO,
          env: { SVC_TEST_DB: 'pglite' },
          globalSetup: ['test/support/global-setup-pglite.ts'],
        },
      },
      {
        // test/system runs several operating-system processes on one database: PostgreSQL only, as a
        // second process cannot open an in-process PGlite.
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
        // same workers as the database projects; a worker launches one Chromium for its files.
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
