// Role-based access control as kube-apiserver's RBAC authorizer does it: a request is allowed when a rule of a
// role bound to the user allows it. ClusterRoleBindings apply everywhere; a RoleBinding applies in its own
// namespace, to the rules of the Role (of that namespace) or ClusterRole it names. A ClusterRole with an
// aggregationRule holds the rules of every ClusterRole its selectors match. Members of system:masters may do
// everything. Nothing is cached: a role or binding written now decides the very next request.
import { labelSelectorMatches } from '../../../lib/apis/label-selector.js';
import type { LabelSelector } from '../../../lib/apis/meta.js';
import type { Attributes } from './attributes.js';
import { AllRules, type Authorizer, type Decision, type UserRules } from './authorizer.js';
import { ruleAllows, type PolicyRule } from './policy-rule.js';
import { isPrivileged, serviceAccountUsername, type UserInfo } from './user.js';

export interface RbacRole {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

export interface RbacSubject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface RbacBinding {
  metadata: { name: string; namespace?: string };
  roleRef: { kind: string; name: string; apiGroup?: string };
  subjects?: RbacSubject[];
}

/** Where the authorizer reads roles and bindings (the store, or plain lists in unit tests). */
export interface RbacObjects {
  clusterRoles(): RbacRole[];
  clusterRole(name: string): RbacRole | undefined;
  role(namespace: string, name: string): RbacRole | undefined;
  clusterRoleBindings(): RbacBinding[];
  roleBindings(namespace: string): RbacBinding[];
}

/** A binding's subject names this user (a ServiceAccount subject without a namespace means the binding's). */
export function subjectMatches(subject: RbacSubject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.username === serviceAccountUsername({ namespace, name: subject.name });
    }
    default:
      return false;
  }
}

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly objects: RbacObjects) {}

  authorize(a: Attributes): Decision {
    if (isPrivileged(a.user)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    const namespace = a.resourceRequest ? a.namespace : '';
    for (const rules of this.boundRules(a.user, namespace, errors)) {
      if (rules.some((r) => ruleAllows(r, a))) return { allowed: true, reason: '' };
    }
    return { allowed: false, reason: reasonOf(errors) };
  }

  rulesFor(user: UserInfo, namespace: string): UserRules {
    if (isPrivileged(user)) return AllRules;
    const errors: string[] = [];
    const out: UserRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const rules of this.boundRules(user, namespace, errors)) {
      for (const r of rules) {
        if (r.nonResourceURLs?.length)
          out.nonResourceRules.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs });
        if (r.resources?.length) {
          out.resourceRules.push({
            verbs: r.verbs ?? [],
            apiGroups: r.apiGroups ?? [],
            resources: r.resources,
            ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
          });
        }
      }
    }
    if (errors.length > 0) {
      out.incomplete = true;
      out.evaluationError = reasonOf(errors);
    }
    return out;
  }

  /** The rule lists of every role bound to the user: cluster-wide ones, then those of the namespace. */
  private *boundRules(user: UserInfo, namespace: string, errors: string[]): Generator<PolicyRule[]> {
    for (const b of this.objects.clusterRoleBindings()) {
      if (b.roleRef.kind !== 'ClusterRole' || !(b.subjects ?? []).some((s) => subjectMatches(s, user, ''))) continue;
      const role = this.objects.clusterRole(b.roleRef.name);
      if (role) yield this.clusterRoleRules(role, new Set());
      else errors.push(notFound('clusterrole', b.roleRef.name));
    }
    if (namespace === '') return;
    for (const b of this.objects.roleBindings(namespace)) {
      if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, namespace))) continue;
      if (b.roleRef.kind === 'ClusterRole') {
        const role = this.objects.clusterRole(b.roleRef.name);
        if (role) yield this.clusterRoleRules(role, new Set());
        else errors.push(notFound('clusterrole', b.roleRef.name));
      } else if (b.roleRef.kind === 'Role') {
        const role = this.objects.role(namespace, b.roleRef.name);
        if (role) yield role.rules ?? [];
        else errors.push(notFound('role', b.roleRef.name));
      }
    }
  }

  /** A ClusterRole's rules; an aggregated one's are those of the ClusterRoles its selectors pick. */
  private clusterRoleRules(role: RbacRole, seen: Set<string>): PolicyRule[] {
    const selectors = role.aggregationRule?.clusterRoleSelectors;
    if (!selectors) return role.rules ?? [];
    seen.add(role.metadata.name);
    const rules: PolicyRule[] = [];
    for (const other of this.objects.clusterRoles()) {
      if (seen.has(other.metadata.name)) continue;
      if (!selectors.some((s) => selects(s, other.metadata.labels))) continue;
      rules.push(...this.clusterRoleRules(other, seen));
    }
    return rules;
  }
}

/** An invalid selector selects nothing (kube's aggregation controller skips it the same way). */
function selects(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  try {
    return labelSelectorMatches(selector, labels);
  } catch {
    return false;
  }
}

function notFound(kind: 'role' | 'clusterrole', name: string): string {
  return `${kind}.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;
}

function reasonOf(errors: string[]): string {
  if (errors.length === 0) return '';
  return `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;
}
