import { Type } from 'typebox';
import { Body, Data, List, PlainText, Timestamp } from '../../http/schemas.ts';

export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: Type.String(),
    created_at: Timestamp,
  },
  { title: 'User' },
);
export const Merchant = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp },
  { title: 'Merchant' },
);
export const Store = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp },
  { title: 'Store' },
);

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: 10, maxLength: 1024 });

export const SignupBody = Body({
  merchant_name: PlainText({ minLength: 1, maxLength: 100 }),
  email: Email,
  password: Password,
});
export const LoginBody = Body({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const Session = Data(
  Type.Object({ token: Type.String(), expires_at: Timestamp, user: User, merchant: Merchant }),
);
export const Me = Data(Type.Object({ user: User, merchant: Merchant, stores: Type.Array(Store) }));

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
