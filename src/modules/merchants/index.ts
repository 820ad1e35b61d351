import type { Module } from '../module.ts';
import { settingsRoutes } from './settings.routes.ts';
import type { MembersWithoutFactor } from './settings.service.ts';
import { createFirstStores, type FirstStores } from './stores.service.ts';
import { storeRoutes } from './stores.routes.ts';

export {
  findMerchant,
  findMerchantStore,
  insertMerchant,
  isEmptyDatabase,
  merchantName,
  presentMerchant,
  storesOf,
  type MerchantRow,
} from './merchants.service.ts';
export { Merchant, Store } from './merchants.schemas.ts';
export { firstStore, installedStoreId, type FirstStores, type PublicStore } from './stores.service.ts';

export interface MerchantsModule extends Module {
  /** Each merchant's first store, remembered: the token endpoint's `store_id` costs no query once warm. */
  readonly firstStores: FirstStores;
}

export interface MerchantsDeps {
  /** The identity module's members without a second factor, named beside the require-MFA setting. */
  readonly membersWithoutFactor: MembersWithoutFactor;
}

export function createMerchants(deps: MerchantsDeps): MerchantsModule {
  return {
    name: 'merchants',
    firstStores: createFirstStores(),
    merchantRoutes: settingsRoutes(deps.membersWithoutFactor),
    publicRoutes: storeRoutes,
  };
}
