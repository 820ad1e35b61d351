// The OpenAPI document the service serves at /api/openapi.json, built from the route schemas on a throwaway
// in-memory database (the routes need a context, not data).
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { openDatabase, openPglite } from '../src/db/database.ts';
import { createService } from '../src/server.ts';

export async function buildDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    SVC_LOG_LEVEL: 'silent',
    SVC_WORKERS: 'off',
    SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    SVC_AUDIT_SIGNING_KEYS: randomBytes(32).toString('base64'),
    SVC_INTERNAL_TOKEN: 'openapi',
    SVC_PUBLIC_URL: 'http://127.0.0.1:4000',
  });
  const database = await openDatabase({ pglite: await openPglite(undefined) });
  const service = await createService(config, database);
  try {
    await service.app.ready();
    return service.app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await service.close();
  }
}
