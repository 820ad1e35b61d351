import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { auditContext, merchantOf } from '../../http/request.ts';
import { errors } from '../../http/schemas.ts';
import { Settings, SettingsBody } from './merchants.schemas.ts';
import { merchantSettings, setRequireMfa, type MembersWithoutFactor } from './settings.service.ts';

const ACCOUNT = ['Merchant account'];

export const settingsRoutes =
  (without: MembersWithoutFactor): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { ctx } = app;

    app.get(
      '/settings',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getMerchantSettings',
          summary: 'The merchant’s settings',
          tags: ACCOUNT,
          response: { 200: Settings, ...errors(401) },
        },
      },
      async (request) => ({ data: await merchantSettings(ctx, without, merchantOf(request).merchantId) }),
    );

    app.patch(
      '/settings',
      {
        config: { role: 'owner' },
        schema: {
          operationId: 'updateMerchantSettings',
          summary: 'Change the merchant’s settings',
          tags: ACCOUNT,
          description:
            '`require_mfa`: every member must have a second factor; one without may then only enrol (403 ' +
            '`mfa_enrolment_required` elsewhere). The answer names the members without one ' +
            '(`members_without_second_factor`). Owner only. Audit `merchant.settings_updated`.',
          body: SettingsBody,
          response: { 200: Settings, ...errors(400, 401, 403) },
        },
      },
      async (request) => ({
        data: await setRequireMfa(ctx, without, auditContext(request), request.body.require_mfa),
      }),
    );
  };
