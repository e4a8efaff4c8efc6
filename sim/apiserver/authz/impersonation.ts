// Impersonation (`kubectl --as`, `--as-group`): the request acts as another user when its requester may
// `impersonate` that user (resource users), each group (resource groups), or, for a
// `system:serviceaccount:<ns>:<name>` user, that ServiceAccount (resource serviceaccounts in <ns>), as
// kube-apiserver checks it. An impersonated ServiceAccount without groups gets the account's groups, and
// every impersonated user is in system:authenticated.
import * as E from '../errors.js';
import { forbidden, type ResourceAttributes } from './attributes.js';
import type { Authorizer } from './authorizer.js';
import { AllAuthenticated, parseServiceAccountUsername, serviceAccountGroups, type UserInfo } from './user.js';

export type HeaderValues = Record<string, string[] | undefined>;

function check(
  authorizer: Authorizer,
  requester: UserInfo,
  target: Omit<ResourceAttributes, 'resourceRequest' | 'verb' | 'group'>,
): void {
  const a = { resourceRequest: true as const, verb: 'impersonate', group: '', ...target, user: requester };
  const decision = authorizer.authorize(a);
  if (!decision.allowed) throw forbidden(a, decision.reason);
}

/** The user the request acts as: the requester, or whom it impersonates (403 when it may not). */
export function actingUser(authorizer: Authorizer, requester: UserInfo, headers: HeaderValues): UserInfo {
  const users = headers['impersonate-user'] ?? [];
  const groups = headers['impersonate-group'] ?? [];
  const [username] = users;
  if (username === undefined) {
    if (groups.length > 0) throw E.badRequest(`requested ${JSON.stringify(groups)} without impersonating a user`);
    return requester;
  }
  if (users.length > 1) throw E.badRequest('at most one Impersonate-User header may be given');
  const sa = parseServiceAccountUsername(username);
  if (sa) check(authorizer, requester, { resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
  else check(authorizer, requester, { resource: 'users', namespace: '', name: username });
  for (const g of groups) check(authorizer, requester, { resource: 'groups', namespace: '', name: g });
  const acting = groups.length === 0 && sa ? serviceAccountGroups(sa.namespace) : [...groups];
  if (!acting.includes(AllAuthenticated) && !acting.includes('system:unauthenticated')) acting.push(AllAuthenticated);
  return { username, groups: acting };
}
