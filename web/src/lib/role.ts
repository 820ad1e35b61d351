// The signed-in member's role (API.md section 11.2), for the screens: a control beyond the role is absent,
// not merely refused. The service checks every call anyway (src/http/roles.ts); this only spares a member
// the buttons that would answer 403.
import { createContext, useContext } from 'react';

export type Role = 'viewer' | 'developer' | 'admin' | 'owner';
export const ROLES: readonly Role[] = ['viewer', 'developer', 'admin', 'owner'];

const rank = (role: string) => ROLES.indexOf(role as Role);

/** Whether a member of role `has` may do what needs `needs`. */
export const roleAllows = (has: string, needs: Role) => rank(has) >= rank(needs);

export const RoleContext = createContext<Role>('viewer');

/** Whether the signed-in member may do what needs `needs`. */
export function useCan(needs: Role): boolean {
  return roleAllows(useContext(RoleContext), needs);
}
