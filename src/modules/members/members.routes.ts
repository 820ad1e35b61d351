// The team routes (API.md section 11.2). Each declares its role; acting on an owner is an owner's
// (members.service.ts, `mayManage`).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditContext, merchantOf, merchantScope } from '../../http/request.ts';
import { errors } from '../../http/schemas.ts';
import { listMembers } from '../identity/index.ts';
import { exposedCredentials, rotateExposed, type RotationState } from './exposure.service.ts';
import { FORMER_MEMBER_DAYS, formerMembers } from './former-members.service.ts';
import type { Manager } from './manager.ts';
import { changeRole, removeMember } from './members.service.ts';
import {
  ExposedList,
  FormerMemberList,
  MemberAnswer,
  MemberList,
  MemberParams,
  RemovedAnswer,
  RoleBody,
  RotatedAnswer,
  RotateExposedBody,
} from './members.schemas.ts';

const manager = (request: FastifyRequest): Manager => ({
  audit: auditContext(request),
  role: merchantOf(request).role,
});

export const memberRoutes =
  (rotation: RotationState): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/members',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listMembers',
          summary: 'The merchant’s members and their roles',
          tags: ['Team'],
          description: 'Every member, the longest-standing first (a team fits one page).',
          response: { 200: MemberList, ...errors(401) },
        },
      },
      async (request) => ({ data: await listMembers(app.ctx, merchantScope(request)) }),
    );

    app.patch(
      '/members/:userID',
      {
        config: { role: 'admin' },
        schema: {
          operationId: 'changeMemberRole',
          summary: 'Change a member’s role',
          tags: ['Team'],
          description:
            'Making, demoting or changing an owner needs the owner role. Demoting the last owner: 409 conflict.',
          params: MemberParams,
          body: RoleBody,
          response: { 200: MemberAnswer, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => ({
        data: await changeRole(app.ctx, manager(request), request.params.userID, request.body.role),
      }),
    );

    app.delete(
      '/members/:userID',
      {
        config: { role: 'admin', stepUp: 'always' },
        schema: {
          operationId: 'removeMember',
          summary: 'Remove a member',
          tags: ['Team'],
          description:
            'The member’s sessions end at once, on every process. The answer lists the credentials it saw in ' +
            'clear that still work (as GET .../exposed-credentials). Removing an owner needs the owner role; ' +
            'the last owner: 409 conflict.',
          params: MemberParams,
          response: { 200: RemovedAnswer, ...errors(401, 403, 404, 409) },
        },
      },
      async (request) => ({ data: await removeMember(app.ctx, manager(request), request.params.userID) }),
    );

    app.get(
      '/members/:userID/exposed-credentials',
      {
        config: { role: 'admin' },
        schema: {
          operationId: 'listExposedCredentials',
          summary: 'The credentials a member saw in clear that still work',
          tags: ['Team'],
          description:
            'From the audit trail: key pairs it created or rotated, client secrets it created or rotated, ' +
            'webhook secrets it created, rotated or revealed; only those still working. For a present or a ' +
            'former member.',
          params: MemberParams,
          response: { 200: ExposedList, ...errors(401, 403, 404) },
        },
      },
      async (request) => {
        const items = await exposedCredentials(app.ctx, merchantScope(request), request.params.userID);
        return { data: { items, count: items.length, has_more: false, next_cursor: null } };
      },
    );

    app.get(
      '/former-members',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listFormerMembers',
          summary: 'Former members who saw credentials that still work',
          tags: ['Team'],
          description:
            `Members removed in the last ${FORMER_MEMBER_DAYS} days whose exposed credentials (as GET ` +
            '.../exposed-credentials) still work, the latest removal first; one leaves the list once each is ' +
            'rotated, revoked or expired (POST /members/{userID}/exposed-credentials/rotate rotates them all). ' +
            'A team fits one page.',
          response: { 200: FormerMemberList, ...errors(401) },
        },
      },
      async (request) => {
        const items = await formerMembers(app.ctx, merchantScope(request).merchantId);
        return { data: { items, count: items.length, has_more: false, next_cursor: null } };
      },
    );

    app.post(
      '/members/:userID/exposed-credentials/rotate',
      {
        config: { role: 'admin', stepUp: 'always' },
        schema: {
          operationId: 'rotateExposedCredentials',
          summary: 'Rotate every credential a member saw',
          tags: ['Team'],
          description:
            'Each credential of the exposed list is rotated, the secret seen working for previous_expires_in ' +
            'seconds more (a key pair already replaced is revoked). The new secrets are in this answer only ' +
            '(Cache-Control: no-store).',
          params: MemberParams,
          body: Type.Optional(RotateExposedBody),
          response: { 200: RotatedAnswer, ...errors(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const credentials = await rotateExposed(
          app.ctx,
          rotation,
          manager(request),
          request.params.userID,
          request.body?.previous_expires_in ?? 0,
        );
        void reply.header('cache-control', 'no-store');
        return { data: { credentials } };
      },
    );
  };
