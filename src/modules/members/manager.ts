// Who manages a team, and the rule that is about the member acted on rather than the route: owners are an
// owner's to make, demote, remove or invite (API.md section 11.2: an admin "manages members other than
// owners"). The routes declare admin; this is checked once the member acted on is known.
import { forbiddenFor, type Role } from '../../http/roles.ts';
import type { AuditContext } from '../audit/index.ts';

/** The signed-in member acting, with its role. */
export interface Manager {
  audit: AuditContext;
  role: Role;
}

/** 403 `forbidden` naming the owner role when an admin acts on an owner, or would make one. */
export function mayManage(actor: Role, ...roles: Role[]): void {
  if (actor !== 'owner' && roles.includes('owner')) throw forbiddenFor('owner', actor);
}
