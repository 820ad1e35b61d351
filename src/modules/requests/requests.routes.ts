import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { merchantScope } from '../../http/request.ts';
import { Data, errors, pageOf } from '../../http/schemas.ts';
import { RequestIdParams, RequestLogDetail, RequestsPage, RequestsQuery } from './requests.schemas.ts';
import { getRequest, listRequests } from './requests.service.ts';

const LIST_DESCRIPTION =
  'Every call to /api/public/v1 (the OAuth token, revoke and introspection endpoints included) made with a ' +
  "credential of this merchant in this mode, newest first. With app_id, that app's calls: for its owner, " +
  'on every store that installed it, with the calls refused because the installation was disconnected or ' +
  'the token expired. Recording trails the answer by about a second; entries are kept at least ' +
  'SVC_REQUEST_LOG_RETENTION_DAYS (default 7) days.';

export const requestRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/developer/requests',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'listRequests',
        summary: 'List request log entries',
        description: LIST_DESCRIPTION,
        tags: ['Logs'],
        querystring: RequestsQuery,
        response: { 200: RequestsPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listRequests(app.ctx, merchantScope(request), {
        ...pageOf(q),
        status: q.status,
        errorCode: q.error_code,
        method: q.method?.toUpperCase(),
        path: q.path,
        credentialId: q.credential_id,
        appId: q.app_id,
        storeId: q.store_id,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
      });
      return { data: page };
    },
  );

  app.get(
    '/developer/requests/:requestID',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'getRequest',
        summary: 'A request log entry, with what the request caused',
        description:
          'The newest entry of this request id, with the audit entries it wrote and the webhook deliveries of the events recorded during it.',
        tags: ['Logs'],
        params: RequestIdParams,
        response: { 200: Data(RequestLogDetail), ...errors(400, 401, 404) },
      },
    },
    async (request) => ({
      data: await getRequest(app.ctx, merchantScope(request), request.params.requestID),
    }),
  );
};
