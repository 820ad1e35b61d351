// The integrator guides of docs/guides/, served as Markdown text so that the dashboard and the API
// reference can link to them on the running service. A fixed list: no path from the URL reaches the disk.
import type { FastifyPluginAsync } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { notFound } from '../../lib/errors.ts';
import { errors } from '../../http/schemas.ts';

const DIR = join(import.meta.dirname, '../../../docs/guides');
export const GUIDES = [
  'quickstart.md',
  'oauth-apps.md',
  'api-keys.md',
  'platform-services.md',
  'audit.md',
] as const;

export const guideRoutes: FastifyPluginAsync = async (app) => {
  // Read once at start: the guides change with a release, not while the process runs.
  const texts = new Map(GUIDES.map((name) => [name, readFileSync(join(DIR, name), 'utf8')]));
  app.get(
    '/guides/:name',
    {
      schema: {
        operationId: 'getGuide',
        summary: 'An integrator guide, as Markdown',
        tags: ['Health'],
        description: 'quickstart.md, oauth-apps.md, api-keys.md, platform-services.md or audit.md.',
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.String(), ...errors(404) },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const text = texts.get(name as (typeof GUIDES)[number]);
      if (text === undefined) throw notFound('guide');
      return reply
        .type('text/markdown; charset=utf-8')
        .header('x-content-type-options', 'nosniff')
        .send(text);
    },
  );
};
