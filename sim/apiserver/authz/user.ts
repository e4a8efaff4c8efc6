// Who a request acts as, named the way kube-apiserver names users: the control plane's own administrator,
// and ServiceAccounts as `system:serviceaccount:<namespace>:<name>` with their fixed groups.

export interface UserInfo {
  username: string;
  groups: string[];
}

export const AllAuthenticated = 'system:authenticated';
/** Members may do everything, whatever RBAC says (kube-apiserver short-cuts this group before any authorizer). */
export const PrivilegedGroup = 'system:masters';

/** The holder of the control plane's bearer token, as OpenShift's installer kubeconfig presents itself. */
export const AdminUser: Readonly<UserInfo> = Object.freeze({
  username: 'system:admin',
  groups: [PrivilegedGroup, AllAuthenticated],
});

const ServiceAccountPrefix = 'system:serviceaccount:';

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export function serviceAccountUsername(sa: ServiceAccountRef): string {
  return `${ServiceAccountPrefix}${sa.namespace}:${sa.name}`;
}

/** The groups every ServiceAccount of a namespace is in. */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

export function serviceAccountUser(sa: ServiceAccountRef): UserInfo {
  return { username: serviceAccountUsername(sa), groups: [...serviceAccountGroups(sa.namespace), AllAuthenticated] };
}

/** namespace and name of a `system:serviceaccount:<ns>:<name>` username; undefined for any other user. */
export function parseServiceAccountUsername(username: string): ServiceAccountRef | undefined {
  if (!username.startsWith(ServiceAccountPrefix)) return undefined;
  const parts = username.slice(ServiceAccountPrefix.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(PrivilegedGroup);
}
