// The client as an outsider uses it: a fresh directory whose only dependency is clients/typescript
// type-checks and runs a 20-line script against a started service — a key pair, a public call with it, and
// every page of the logs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';

const ROOT = join(import.meta.dirname, '../..');
// Asynchronous: the service under test answers from this same process, so its event loop must keep running.
const run = promisify(execFile);
let svc: TestService;
let m: TestMerchant;
let dir: string;
beforeAll(async () => {
  svc = await startTestService({ listen: true });
  m = await signupMerchant(svc.app);
  dir = mkdtempSync(join(tmpdir(), 'svc-client-'));
});
afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

const script = (
  baseUrl: string,
  token: string,
) => `import { createSvcClient, paginate, unwrap } from '@svc/client';

const merchant = createSvcClient({ baseUrl: '${baseUrl}', token: '${token}', mode: 'test' });
const pair = await unwrap(merchant.POST('/api/v1/merchant/api-keys', { body: { name: 'fresh project' } }));

const server = createSvcClient({ baseUrl: '${baseUrl}', token: pair.secret_key });
const countries = await unwrap(server.GET('/api/public/v1/payments/supported-countries'));
const firstCountry: string = countries.items[0]!.name;

let entries = 0;
for await (const entry of paginate((after) =>
  merchant.GET('/api/v1/merchant/developer/logs', { params: { query: { limit: 1, starting_after: after } } }),
)) {
  const action: string = entry.action;
  if (action) entries++;
}

console.log(JSON.stringify({ key: pair.id, countries: countries.items.length, firstCountry, entries }));
`;

it('type-checks and runs a script in a fresh directory that depends only on clients/typescript', async () => {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'fresh',
      private: true,
      type: 'module',
      dependencies: { '@svc/client': `file:${join(ROOT, 'clients/typescript')}` },
    }),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2024',
        lib: ['es2024', 'dom'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        allowImportingTsExtensions: true,
        noEmit: true,
        types: [],
      },
      include: ['main.ts'],
    }),
  );
  writeFileSync(join(dir, 'main.ts'), script(svc.url, m.token));
  expect(script(svc.url, m.token).trim().split('\n').length).toBeLessThanOrEqual(20);
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
  });
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]);
  const { stdout: out } = await run(process.execPath, [join(dir, 'main.ts')], { cwd: dir, encoding: 'utf8' });
  const result = JSON.parse(out) as { key: string; countries: number; firstCountry: string; entries: number };
  expect(result.key).toMatch(/^key_/);
  expect(result.countries).toBe(249);
  expect(result.entries).toBeGreaterThanOrEqual(1);
}, 120_000);
