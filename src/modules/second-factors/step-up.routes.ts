// Step-up: a factor verified again opens a 10-minute window for sensitive actions (API.md section 11.3).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { auditContext, merchantOf } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import { STEP_UP_WINDOW_MS } from '../../http/second-factor.ts';
import { AppError } from '../../lib/errors.ts';
import { iso } from '../../lib/time.ts';
import { StepUp, StepUpBody, WebAuthnOptions } from './factors.schemas.ts';
import { ACCOUNT, oneFactor, origin } from './factor-request.ts';
import { confirmFactor, factors, passkeys, type SignInLimits } from '../identity/index.ts';

export const stepUpRoutes: FastifyPluginAsync<{ signIns: SignInLimits }> = async (plugin, { signIns }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/auth/step-up/options',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'stepUpPasskeyOptions',
        summary: 'Options for a passkey step-up',
        tags: ACCOUNT,
        description: 'WebAuthn request options naming the signed-in user’s passkeys.',
        body: Type.Optional(EmptyBody),
        response: { 200: WebAuthnOptions, ...errors(401) },
      },
    },
    async (request) => ({ data: await passkeys.assertionOptions(ctx, merchantOf(request).userId) }),
  );

  app.post(
    '/auth/step-up',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'stepUp',
        summary: 'Verify a second factor for sensitive actions',
        tags: ACCOUNT,
        description:
          'One factor (`code`, `recovery_code` or `passkey`) opens a 10-minute window in this session for the ' +
          'actions that answer 403 `step_up_required` (API.md section 11.3). Wrong factors draw on the ' +
          'sign-in failure budgets.',
        body: StepUpBody,
        response: { 200: StepUp, ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const proof = oneFactor(request.body);
      const audit = auditContext(request);
      const method = await confirmFactor(signIns, ctx, {
        ...origin(request),
        check: 'step_up',
        audit,
        proof,
      });
      if (!method) throw new AppError('forbidden', 'The second factor is wrong.');
      const at = await factors.markSteppedUp(ctx, merchantOf(request).sessionId);
      const expires = new Date(Date.parse(at) + STEP_UP_WINDOW_MS);
      return { data: { method, stepped_up_at: at, expires_at: iso(expires) } };
    },
  );
};
