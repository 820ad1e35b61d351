// The demo merchant of the embedded default (API.md section 2): created on the first start of an empty
// embedded database, its sign-in printed then and kept in the data directory (beside the generated master
// key, mode 0600), so that `svc demo` can show it again. Only for the embedded database: a server on
// PostgreSQL has real merchants, made by sign-up or `svc merchant create`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePassword } from './lib/password-policy.ts';
import { isEmptyDatabase } from './modules/merchants/index.ts';
import { createMerchant } from './modules/identity/index.ts';
import type { Service } from './server.ts';

export interface DemoSignIn {
  email: string;
  password: string;
}

const FILE = 'demo-sign-in.json';

export function readDemoSignIn(dataDir: string): DemoSignIn | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as DemoSignIn;
  } catch {
    return undefined;
  }
}

export function demoSignInText(publicUrl: string, signIn: DemoSignIn): string {
  return `Sign in at ${publicUrl}/dashboard\n  email:    ${signIn.email}\n  password: ${signIn.password}\n`;
}

/** On the first start of an empty embedded database: the demo merchant, its sign-in printed and kept. */
export async function seedDemo(service: Service): Promise<void> {
  const { ctx } = service;
  if (ctx.config.databaseUrl || !(await isEmptyDatabase(ctx))) return;
  const signIn = { email: 'demo@example.com', password: generatePassword() };
  await createMerchant(ctx, {
    merchantName: 'Demo merchant',
    email: signIn.email,
    password: signIn.password,
  });
  writeFileSync(join(ctx.config.dataDir, FILE), `${JSON.stringify(signIn)}\n`, { mode: 0o600 });
  process.stdout.write(
    `\nDemo merchant created. ${demoSignInText(ctx.config.publicUrl, signIn)}(\`npx svc demo\` shows this again.)\n\n`,
  );
}
