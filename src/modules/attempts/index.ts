// The attempts module: every delivery attempt of the merchant's endpoints (API.md section 12.2,
// GET /webhook-attempts), one room from the route to its statement: the filters' words (attempts.service.ts),
// the page's statement, one index range per filter value, and its count from the counters
// (attempts.repository.ts); and the attempts of one delivery, which the deliveries page (dev-loop) shows. It
// owns no table and writes nothing: it reads the attempts the delivery module
// records, with the columns, indexes and counters that module keeps for this list (migrations 0130, 0172 and
// 0196), on a replica when there is one (docs/decisions/0201-the-attempts-list-as-a-room.md).
import type { Module } from '../module.ts';
import { attemptRoutes } from './attempts.routes.ts';

export {
  attemptsOfDelivery,
  attemptsPageStatement,
  listMerchantAttempts,
  type AttemptFilter,
  type ListedAttempt,
} from './attempts.repository.ts';

export function createAttempts(): Module {
  return { name: 'attempts', merchantRoutes: attemptRoutes };
}
