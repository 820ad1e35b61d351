// The addresses deliveries leave from (API.md section 12.2): for the merchant's session, and on the public
// interface without any credential, since a receiver's operator configures a firewall with them. They come
// from the configuration, read once; nothing here touches the database.
import type { FastifyPluginAsync } from 'fastify';
import { errors } from '../../http/schemas.ts';
import { SourceAddressesData } from './egress.schemas.ts';

export interface SourceAddresses {
  readonly addresses: readonly string[];
  readonly updated_at: string;
}

const ROUTE = '/webhook-source-addresses';
const OPERATION = {
  summary: 'List the addresses webhook deliveries come from',
  tags: ['Webhooks'],
  description:
    'The IP addresses or CIDRs that deliveries leave from, as the operator declares them: allow them in a ' +
    "receiver's firewall. The same list on the merchant and the public interface.",
};

export const merchantEgressRoutes =
  (answer: SourceAddresses): FastifyPluginAsync =>
  async (app) => {
    app.get(
      ROUTE,
      {
        config: { role: 'viewer' },
        schema: {
          ...OPERATION,
          operationId: 'getWebhookSourceAddresses',
          response: { 200: SourceAddressesData, ...errors(401) },
        },
      },
      async () => ({ data: answer }),
    );
  };

export const publicEgressRoutes =
  (answer: SourceAddresses): FastifyPluginAsync =>
  async (app) => {
    app.get(
      ROUTE,
      {
        // no credential: a receiver's operator reads it without an account
        config: { anonymous: true },
        schema: {
          ...OPERATION,
          operationId: 'getPublicWebhookSourceAddresses',
          description: `${OPERATION.description} No credential is needed.`,
          // a 400 only for input no route takes (the edge's text guard), as on every route
          response: { 200: SourceAddressesData, ...errors(400) },
        },
      },
      // no-store, as every answer under /api (src/http/security-headers.ts): a list an operator just changed
      // is read at once
      () => ({ data: answer }),
    );
  };
