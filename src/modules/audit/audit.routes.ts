import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import {
  AuditChainState,
  AuditCheckpoint,
  AuditKeys,
  ExportQuery,
  LogsPage,
  LogsQuery,
} from './audit.schemas.ts';
import { exportLogs, listLogs } from './audit.service.ts';
import { checkpoint, type ChainState } from './chain.service.ts';
import type { ChainKeys } from './signing-keys.service.ts';
import type { Sealer } from './sealer.service.ts';
import type { Scope } from '../../lib/scope.ts';

export interface AuditState {
  readonly sealer: Sealer;
  readonly keys: ChainKeys;
  /** The chain check, one run per chain at a time in this process. */
  readonly checkChain: (scope: Scope) => Promise<ChainState>;
}

export const auditRoutes =
  (state: AuditState): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/developer/logs',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listLogs',
          summary: 'List audit log entries',
          tags: ['Logs'],
          querystring: LogsQuery,
          response: { 200: LogsPage, ...errors(400, 401) },
        },
      },
      async (request) => {
        const q = request.query;
        const logs = await listLogs(app.ctx, merchantScope(request), {
          ...pageOf(q),
          action: q.action,
          entityType: q.entity_type,
          entityId: q.entity_id,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
        });
        return { data: logs };
      },
    );

    app.get(
      '/developer/logs/export',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'exportLogs',
          summary: 'Export the audit log as CSV or JSON Lines',
          tags: ['Logs'],
          description:
            'The filters of the logs list; streamed in sequence order, newest first, at most 1,000,000 entries ' +
            'of the chain, then the entries outside it (rows inserted into the database by hand, never sealed), ' +
            'flagged `outside_chain`.',
          querystring: ExportQuery,
          produces: ['text/csv', 'application/x-ndjson'],
          response: {
            200: {
              description: 'The matching entries, newest first, streamed (at most 1,000,000).',
              content: {
                'text/csv': { schema: { type: 'string' } },
                'application/x-ndjson': { schema: { type: 'string' } },
              },
            },
            ...errors(400, 401),
          },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const format = q.format ?? 'csv';
        const audit = auditContext(request);
        const stream = await exportLogs(
          app.ctx,
          state.sealer,
          audit,
          {
            action: q.action,
            entityType: q.entity_type,
            entityId: q.entity_id,
            since: q.since ? new Date(q.since) : undefined,
            until: q.until ? new Date(q.until) : undefined,
          },
          format,
        );
        const day = new Date(app.ctx.clock.now()).toISOString().slice(0, 10);
        return (
          reply
            .header('cache-control', 'no-store')
            .header('content-disposition', `attachment; filename="svc-logs-${audit.mode}-${day}.${format}"`)
            .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
            // a stream of the documented text, which the schema can only describe as a string
            .send(stream as unknown as string)
        );
      },
    );

    app.get(
      '/developer/logs/checkpoint',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getLogsCheckpoint',
          summary: 'A signed checkpoint of the audit chain',
          tags: ['Logs'],
          description:
            "An Ed25519 signature over the chain's last sealed entry (entries committed before the call are " +
            'sealed first), verifiable with GET /.well-known/svc-audit-keys. Keep it with an export taken ' +
            'after it: `svc audit verify` checks that the export reaches it.',
          response: { 200: AuditCheckpoint, ...errors(400, 401) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return { data: await checkpoint(app.ctx, state.sealer, state.keys, merchantScope(request)) };
      },
    );

    app.get(
      '/developer/logs/chain',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'checkLogsChain',
          summary: 'Check the audit chain now',
          tags: ['Logs'],
          description:
            'Recomputes every hash and link of the chain from its first entry, as `svc audit verify` does ' +
            'over an export, and answers how far it holds: "verified up to entry N", or where it breaks; and ' +
            'counts the entries outside the chain (neither sealed nor queued: inserted into the database by hand).',
          response: { 200: AuditChainState, ...errors(400, 401) },
        },
      },
      async (request) => ({ data: await state.checkChain(merchantScope(request)) }),
    );
  };

/** The checkpoints' public keys, at the root: auditors fetch them without a session. */
export const auditKeyRoutes =
  (keys: ChainKeys): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/.well-known/svc-audit-keys',
      {
        schema: {
          operationId: 'getAuditKeys',
          summary: 'The public keys of the audit checkpoints (JWKS)',
          tags: ['Logs'],
          description:
            'A JSON Web Key Set (RFC 7517) of Ed25519 keys (OKP, RFC 8037): the signing key first, then every ' +
            'other key any process of the service has started with, kept after rotations, so that checkpoints ' +
            "signed before a rotation still verify. A checkpoint's key_id is a kid.",
          response: { 200: AuditKeys },
        },
      },
      async (_request, reply) => {
        void reply.header('cache-control', 'public, max-age=300');
        return keys.published();
      },
    );
  };
