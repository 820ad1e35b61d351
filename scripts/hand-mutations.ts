// Hand mutations: a fault a reviewer would plant, each applied alone to the source, with the tests that must
// catch it run on PostgreSQL; a mutant that leaves them green is a weakened assertion. The first eight are the
// review's list, the last four guard what the third wave added or leaned on. Each file is put back as it was,
// and a file with uncommitted changes is refused, so a run never loses work. Minutes; not part of `npm test`.
//
//   node scripts/hand-mutations.ts [NAME ...]
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

interface Mutant {
  name: string;
  file: string;
  from: string;
  to: string;
  tests: string[];
}

const MUTANTS: Mutant[] = [
  {
    name: 'mode check removed',
    file: 'src/http/public-auth.ts',
    from: 'if (request.modeHeader && request.modeHeader !== principal.mode) {',
    to: 'if (false) {',
    tests: ['test/public/auth.test.ts'],
  },
  {
    name: 'public:* ignored',
    file: 'src/lib/scopes.ts',
    from: "if (s === 'public:read' || s === 'public:*')",
    to: "if (s === 'public:read')",
    tests: ['test/public/auth.test.ts'],
  },
  {
    name: 'signature without timestamp',
    file: 'src/modules/webhooks/signing.ts',
    from: '`${id}.${timestamp}.${body}`',
    to: '`${id}.${body}`',
    tests: ['test/webhooks/delivery.test.ts'],
  },
  {
    name: 'webhook lookup without tenant filter',
    file: 'src/modules/webhooks/webhooks.repository.ts',
    from: "    .where('webhooks.merchant_id', '=', scope.merchantId)\n",
    to: '',
    tests: ['test/security/merchant-routes.test.ts', 'test/webhooks/subscriptions.test.ts'],
  },
  {
    name: '410 not disabling',
    file: 'src/modules/delivery/retry-schedule.ts',
    from: "if (status === 410) return { status: 'failed', step, nextAttemptAt: null, gone: true };",
    to: "if (status === 410) return { status: 'failed', step, nextAttemptAt: null, gone: false };",
    tests: ['test/webhooks/retry-schedule.test.ts', 'test/webhooks/lifecycle.test.ts'],
  },
  {
    name: 'PKCE unchecked',
    file: 'src/modules/oauth-token/token.service.ts',
    from: '!pkceMatches(verifier, row.code_challenge)',
    to: 'false',
    tests: ['test/oauth/token.test.ts'],
  },
  {
    name: 'redirect prefix match',
    file: 'src/modules/oauth-authorize/authorize.service.ts',
    from: '!app.redirectUris.includes(redirectUri)',
    to: '!app.redirectUris.some((u) => redirectUri.startsWith(u))',
    tests: ['test/oauth/authorize.test.ts'],
  },
  {
    name: 'wrong audit action on revoke',
    file: 'src/modules/oauth-introspect/revoke.service.ts',
    from: "action: 'oauth.token_revoked'",
    to: "action: 'oauth.connection_revoked'",
    tests: ['test/oauth/token.test.ts'],
  },
  {
    name: 'refresh reuse keeps the family',
    file: 'src/modules/oauth-token/token-outcome.ts',
    from: '  await oauth.deleteFamily(trx, row.family_id);\n',
    to: '',
    tests: ['test/oauth/token.test.ts'],
  },
  {
    name: 'SSRF guard lets 10.0.0.0/8 through',
    file: 'src/modules/webhooks/url-guard.ts',
    from: "  { range: '10.0.0.0/8', name: 'private use' },\n",
    to: '',
    tests: ['test/webhooks/ssrf.test.ts'],
  },
  {
    name: 'audit hash ignores prev_hash',
    file: 'src/lib/audit-chain.ts',
    from: '.update(prevHash).update(body!)',
    to: '.update(body!)',
    tests: ['test/audit/chain.test.ts', 'test/audit/verify-cli.test.ts'],
  },
  {
    name: 'request log entry read without tenant filter',
    file: 'src/modules/requests/requests.repository.ts',
    from: "    .where('merchant_id', '=', scope.merchantId)\n    .where('mode', '=', scope.mode)\n    .where('request_id', '=', requestId)",
    to: "    .where('mode', '=', scope.mode)\n    .where('request_id', '=', requestId)",
    tests: ['test/requests/request-logs.test.ts'],
  },
];

const only = process.argv.slice(2);
const chosen = only.length === 0 ? MUTANTS : MUTANTS.filter((m) => only.includes(m.name));
let survived = 0;
for (const m of chosen) {
  const dirty = spawnSync('git', ['status', '--porcelain', '--', m.file], { cwd: ROOT, encoding: 'utf8' });
  if (dirty.stdout.trim() !== '')
    throw new Error(`${m.file} has uncommitted changes: commit or stash them first`);
  const path = join(ROOT, m.file);
  const source = readFileSync(path, 'utf8');
  const sites = source.split(m.from).length - 1;
  if (sites !== 1)
    throw new Error(`${m.name}: its site appears ${sites} times in ${m.file}; update the mutant`);
  writeFileSync(path, source.replace(m.from, m.to));
  try {
    const run = spawnSync('npx', ['vitest', 'run', '--project', 'pg', ...m.tests], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const caught = run.status !== 0;
    if (!caught) survived++;
    console.log(`${caught ? 'caught  ' : 'SURVIVED'} ${m.name} (${m.tests.join(', ')})`);
  } finally {
    writeFileSync(path, source);
  }
}
console.log(`${chosen.length - survived} of ${chosen.length} mutants caught`);
process.exit(survived === 0 ? 0 : 1);
