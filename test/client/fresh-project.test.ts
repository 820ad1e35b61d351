// The client as an outsider gets it: the package packed as a tarball (`npm pack`, which builds it), installed
// into an empty directory whose only dependency it is, a 20-line script that type-checks and runs against a
// started service (a key pair, a public call with it, a webhook on an event type, every page of the logs),
// and a script with a misspelled body field and a wrong event id that must not compile.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';

const ROOT = join(import.meta.dirname, '../..');
// Asynchronous: the service under test answers from this same process, so its event loop must keep running.
const run = promisify(execFile);
const tsc = (project: string) =>
  run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project]).then(
    () => '',
    (err: { stdout: string }) => err.stdout,
  );
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
) => `import { createSvcClient, paginate, unwrap, type EventType } from '@svc/client';

const merchant = createSvcClient({ baseUrl: '${baseUrl}', token: '${token}', mode: 'test' });
const pair = await unwrap(merchant.POST('/api/v1/merchant/api-keys', { body: { name: 'fresh project' } }));
const server = createSvcClient({ baseUrl: '${baseUrl}', token: pair.secret_key });
const countries = await unwrap(server.GET('/api/public/v1/payments/supported-countries'));
const events: EventType[] = ['order.created', 'order.paid'];
const hook = await unwrap(
  merchant.POST('/api/v1/merchant/webhooks', { body: { url: 'https://example.com/hooks', events } }),
);
let entries = 0;
for await (const entry of paginate((after) =>
  merchant.GET('/api/v1/merchant/developer/logs', { params: { query: { limit: 1, starting_after: after } } }),
)) {
  const action: string = entry.action;
  if (action) entries++;
}
console.log(JSON.stringify({ key: pair.id, countries: countries.items.length, hook: hook.events, entries }));
`;

const bad = `import { createSvcClient, unwrap } from '@svc/client';

const merchant = createSvcClient({ baseUrl: 'http://127.0.0.1:4000', token: 'svc_mst_x', mode: 'test' });
await unwrap(merchant.POST('/api/v1/merchant/api-keys', { body: { nam: 'misspelled' } }));
await unwrap(
  merchant.POST('/api/v1/merchant/webhooks', { body: { url: 'https://example.com', events: ['order.craeted'] } }),
);
`;

const compilerOptions = {
  target: 'es2024',
  lib: ['es2024', 'dom'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  noUncheckedIndexedAccess: true,
  noEmit: true,
  types: [],
};

it('installs from its tarball into an empty directory, type-checks and runs a script there', async () => {
  // npm pack runs the package's prepack (its build): what a registry would get.
  const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: join(ROOT, 'clients/typescript'),
  });
  const [{ filename, files }] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
  expect(files.map((f) => f.path).sort()).toEqual([
    'README.md',
    'dist/index.d.ts',
    'dist/index.js',
    'dist/schema.d.ts',
    'package.json',
  ]);

  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'fresh', private: true, type: 'module' }),
  );
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['main.ts'] }));
  writeFileSync(join(project, 'tsconfig.bad.json'), JSON.stringify({ compilerOptions, include: ['bad.ts'] }));
  writeFileSync(join(project, 'main.ts'), script(svc.url, m.token));
  writeFileSync(join(project, 'bad.ts'), bad);
  expect(script(svc.url, m.token).trim().split('\n').length).toBeLessThanOrEqual(20);
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(dir, filename)],
    {
      cwd: project,
    },
  );
  // Its dependencies are its own, from the registry: nothing reaches back into this checkout.
  expect(readdirSync(join(project, 'node_modules')).sort()).toEqual(
    expect.arrayContaining(['@svc', 'openapi-fetch', 'openapi-typescript-helpers']),
  );

  expect(await tsc(project)).toBe('');
  const errors = await tsc(join(project, 'tsconfig.bad.json'));
  expect(errors).toMatch(/bad\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'never'/);
  expect(errors).toMatch(/bad\.ts\(6,\d+\): error TS2820: Type '"order\.craeted"' is not assignable/);

  const { stdout: out } = await run(process.execPath, [join(project, 'main.ts')], {
    cwd: project,
    encoding: 'utf8',
  });
  const result = JSON.parse(out) as { key: string; countries: number; hook: string[]; entries: number };
  expect(result.key).toMatch(/^key_/);
  expect(result.countries).toBe(249);
  expect(result.hook).toEqual(['order.created', 'order.paid']);
  expect(result.entries).toBeGreaterThanOrEqual(2);
}, 180_000);
