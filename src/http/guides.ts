// The integrator guides of docs/ (Markdown), served by the service itself so that /docs can link to them
// wherever it runs: a fixed list read at start, never a path taken from the request.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors.ts';

const DOCS = join(import.meta.dirname, '../../docs');
const GUIDES = ['quickstart', 'oauth-apps', 'api-keys', 'platform-services'].map((name) => [
  name,
  join(DOCS, 'guides', `${name}.md`),
]);

export function registerGuides(app: FastifyInstance): void {
  const files = new Map<string, Buffer>();
  for (const [name, file] of [...GUIDES, ['webhooks', join(DOCS, 'webhooks.md')]] as [string, string][]) {
    if (existsSync(file)) files.set(`${name}.md`, readFileSync(file));
  }
  app.get<{ Params: { name: string } }>(
    '/docs/guides/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const body = files.get(request.params.name);
      if (!body) throw new AppError('not_found', 'No such guide.');
      return reply.type('text/markdown; charset=utf-8').send(body);
    },
  );
}
