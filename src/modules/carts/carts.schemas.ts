import { Type } from 'typebox';
import { Data, Timestamp } from '../../http/schemas.ts';
import { CartItem } from '../events/index.ts';

export const Cart = Type.Object(
  {
    id: Type.String({ examples: ['cart_01jd8z6q4m0000000000000000'] }),
    store_id: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('abandoned')]),
    items: Type.Array(CartItem, { description: 'The lines of the cart; a new cart has none.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Cart', description: 'A shopping cart of one store, in the mode of the credential that made it.' },
);

export const CartAnswer = Data(Cart);
export const StoreParams = Type.Object({ storeID: Type.String({ minLength: 1, maxLength: 64 }) });
