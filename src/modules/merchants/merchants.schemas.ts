import { Type } from 'typebox';
import { Body, Data, List, Timestamp } from '../../http/schemas.ts';

export const Merchant = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp },
  { title: 'Merchant' },
);

export const Store = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp },
  { title: 'Store' },
);

export const PublicStore = Type.Object(
  {
    id: Type.String({ examples: ['store_01jd8z6q4m0000000000000000'] }),
    name: Type.String(),
    merchant_id: Type.String(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')], {
      description: 'The mode of the credential: test and live share the store, never their data.',
    }),
  },
  { description: 'A store the credential may act on.' },
);
export const PublicStoreList = List(PublicStore);

export const SettingsBody = Body({
  require_mfa: Type.Boolean({ description: 'Every member must have a second factor.' }),
});
export const Settings = Data(
  Type.Object(
    {
      require_mfa: Type.Boolean(),
      members_without_second_factor: Type.Array(
        Type.Object({ id: Type.String(), email: Type.String() }, { title: 'MemberWithoutSecondFactor' }),
        {
          description:
            'The members who have no second factor now: with require_mfa they may only enrol one (API.md 12.4).',
        },
      ),
    },
    { title: 'MerchantSettings' },
  ),
);
