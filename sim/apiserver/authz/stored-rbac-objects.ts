// The roles and bindings the authorizer reads, straight from the store (no cache to fall behind a write).
import { RbacGroup } from '../builtin-types.js';
import type { Store } from '../storage/store.js';
import type { RbacBinding, RbacObjects, RbacRole } from './rbac-authorizer.js';

const key = (plural: string) => `${RbacGroup}/${plural}`;

export function storedRbacObjects(store: Store): RbacObjects {
  return {
    clusterRoles: () => store.list(key('clusterroles')) as unknown as RbacRole[],
    clusterRole: (name) => store.get(key('clusterroles'), '', name) as unknown as RbacRole | undefined,
    role: (namespace, name) => store.get(key('roles'), namespace, name) as unknown as RbacRole | undefined,
    clusterRoleBindings: () => store.list(key('clusterrolebindings')) as unknown as RbacBinding[],
    roleBindings: (namespace) => store.list(key('rolebindings'), namespace) as unknown as RbacBinding[],
  };
}
