// The addresses deliveries leave from (API.md section 12.2), as receivers read them to allow them in.
import { Type } from 'typebox';
import { Data } from '../../http/schemas.ts';

export const SourceAddresses = Type.Object(
  {
    addresses: Type.Array(Type.String(), {
      description:
        'IP addresses or CIDRs, as the operator declares them (SVC_EGRESS_ADDRESSES); empty when none are declared.',
    }),
    updated_at: Type.String({
      format: 'date-time',
      examples: ['2026-12-01T09:30:00.000Z'],
      description:
        'When the operator last changed the list (SVC_EGRESS_ADDRESSES_UPDATED_AT), else when this process started.',
    }),
  },
  { title: 'WebhookSourceAddresses' },
);
export const SourceAddressesData = Data(SourceAddresses);
