// The default authorizer of the local control plane: its own administrator (system:masters) may do
// everything, so tests that never think about RBAC are never refused; any other user (a ServiceAccount, or
// one impersonated with `kubectl --as`) holds only what kube grants every authenticated user: discovery,
// health and version, and asking what it may do (so `kubectl auth can-i --as` answers no instead of failing).
import type { Attributes } from './attributes.js';
import { AllRules, type Authorizer, type Decision, type UserRules } from './authorizer.js';
import { BootstrapClusterRoles } from './bootstrap-policy.js';
import { ruleAllows, type PolicyRule } from './policy-rule.js';
import { AdminUser, AllAuthenticated, isPrivileged, type UserInfo } from './user.js';

const onlyAdmin = `the local control plane authorizes only its own user (${AdminUser.username})`;

const everyAuthenticatedUser: PolicyRule[] = BootstrapClusterRoles.filter(
  (r) => r.metadata.name !== 'cluster-admin',
).flatMap((r) => r.rules ?? []);

export class AdminOnlyAuthorizer implements Authorizer {
  authorize(a: Attributes): Decision {
    if (isPrivileged(a.user)) return { allowed: true, reason: '' };
    if (a.user.groups.includes(AllAuthenticated) && everyAuthenticatedUser.some((r) => ruleAllows(r, a)))
      return { allowed: true, reason: '' };
    return { allowed: false, reason: onlyAdmin };
  }

  rulesFor(user: UserInfo): UserRules {
    if (isPrivileged(user)) return AllRules;
    if (!user.groups.includes(AllAuthenticated)) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return {
      resourceRules: everyAuthenticatedUser
        .filter((r) => r.resources)
        .map((r) => ({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [] })),
      nonResourceRules: everyAuthenticatedUser
        .filter((r) => r.nonResourceURLs)
        .map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] })),
      incomplete: false,
    };
  }
}
