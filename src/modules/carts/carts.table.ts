import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export type CartStatus = 'active' | 'abandoned';

export interface CartsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  store_id: string;
  status: Generated<CartStatus>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CartsTables {
  carts: CartsTable;
}
