// Invitations (API.md section 11.2): made, listed and withdrawn by admins; read and accepted by whoever holds
// the token, signed in or not (those two routes are anonymous: the token is their credential).
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { resolveMerchant } from '../../http/merchant-auth.ts';
import { auditContext, merchantOf, merchantScope, requestMeta } from '../../http/request.ts';
import { errors } from '../../http/schemas.ts';
import {
  authenticateSession,
  deviceCookieOf,
  Session,
  setSessionCookie,
  type SignInLimits,
} from '../identity/index.ts';
import { accept, invite, listInvitations, readInvitation, withdraw } from './invitations.service.ts';
import type { Mailer } from './mailer.ts';
import {
  AcceptBody,
  InvitationCreated,
  InvitationList,
  InvitationParams,
  InvitationPreview,
  InvitationTokenBody,
  InviteBody,
} from './members.schemas.ts';

// The token is the credential of the two anonymous routes: 178 random bits make guessing it hopeless, and an
// address making more than 20 tries a minute is not a person following a link.
const TOKEN_LIMIT = { rateLimit: { max: 20, timeWindow: '1 minute' } };

export const invitationRoutes =
  (deps: { mailer: Mailer; signIns: SignInLimits }): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/members/invitations',
      {
        config: { role: 'admin' },
        schema: {
          operationId: 'inviteMember',
          summary: 'Invite someone to the team',
          tags: ['Team'],
          description:
            'A single-use link valid 7 days, in this answer only and sent by email when the service has a ' +
            'mail server (SVC_SMTP_URL). An email with a pending invitation: this one replaces it, and `replaced` ' +
            'names it (its link no longer works, and says it was replaced). Inviting an owner, or replacing an ' +
            "owner's invitation, needs the owner role; an email that is a member already: 409 conflict.",
          body: InviteBody,
          response: { 201: InvitationCreated, ...errors(400, 401, 403, 409) },
        },
      },
      async (request, reply) => {
        const made = await invite(
          app.ctx,
          deps.mailer,
          { audit: auditContext(request), role: merchantOf(request).role },
          request.body,
        );
        return reply.code(201).header('cache-control', 'no-store').send({ data: made });
      },
    );

    app.get(
      '/members/invitations',
      {
        config: { role: 'admin' },
        schema: {
          operationId: 'listInvitations',
          summary: 'Pending invitations',
          tags: ['Team'],
          description:
            'Neither accepted, withdrawn nor expired; the newest first. Their links are not shown again.',
          response: { 200: InvitationList, ...errors(401, 403) },
        },
      },
      async (request) => ({ data: await listInvitations(app.ctx, merchantScope(request)) }),
    );

    app.delete(
      '/members/invitations/:invitationID',
      {
        config: { role: 'admin' },
        schema: {
          operationId: 'withdrawInvitation',
          summary: 'Withdraw a pending invitation',
          tags: ['Team'],
          description: 'Its link stops working at once (400 invalid_invitation).',
          params: InvitationParams,
          response: { 204: Type.Null(), ...errors(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await withdraw(
          app.ctx,
          { audit: auditContext(request), role: merchantOf(request).role },
          request.params.invitationID,
        );
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/auth/invitation',
      {
        config: { anonymous: true, ...TOKEN_LIMIT },
        schema: {
          operationId: 'readInvitation',
          summary: 'What an invitation is for, before accepting it',
          tags: ['Team'],
          description:
            'For the invitation page: the merchant, the role, and whether the email has an account (which ' +
            'then accepts with its password or session). Uses nothing up. A POST, so that the token stays out ' +
            'of URLs and their logs.',
          body: InvitationTokenBody,
          response: { 200: InvitationPreview, ...errors(400, 429) },
        },
      },
      async (request) => ({ data: await readInvitation(app.ctx, request.body.token) }),
    );

    app.post(
      '/auth/accept-invitation',
      {
        config: { anonymous: true, ...TOKEN_LIMIT },
        schema: {
          operationId: 'acceptInvitation',
          summary: 'Accept an invitation',
          tags: ['Team'],
          description:
            'An email without an account sets its password here (and optionally a name); an existing user ' +
            'gives its password, or sends a session of that user. Answers like login, with a session of the ' +
            'new membership. A used, expired or withdrawn token: 400 invalid_invitation.',
          body: AcceptBody,
          response: { 200: Session, ...errors(400, 401, 409, 429) },
        },
      },
      async (request, reply) => {
        // The route needs no session; one that is sent and verifies proves the invited user.
        const session = await resolveMerchant(request, authenticateSession).catch(() => null);
        const result = await accept(app.ctx, deps.signIns, {
          token: request.body.token,
          password: request.body.password,
          name: request.body.name,
          session,
          ip: request.ip,
          device: deviceCookieOf(request.cookies),
          log: request.log,
          meta: requestMeta(request),
          mode: request.mode,
        });
        setSessionCookie(reply, app.ctx.config, result);
        return { data: result };
      },
    );
  };
