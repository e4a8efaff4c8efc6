// One RBAC PolicyRule against one request, with kube's matching rules: `*` in verbs, apiGroups and
// resources matches anything; `*/<subresource>` matches that subresource of any resource; resourceNames,
// when present, must hold the object's name (so they never allow create, list or watch of everything);
// nonResourceURLs match exactly or, ending in `*`, by prefix.
import { combinedResource, type RequestAttributes } from './attributes.js';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const All = '*';

function has(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((v) => v === All || v === value);
}

function resourceMatches(rule: PolicyRule, a: { resource: string; subresource?: string }): boolean {
  const combined = combinedResource(a);
  return (rule.resources ?? []).some(
    (r) => r === All || r === combined || (a.subresource !== undefined && r === `*/${a.subresource}`),
  );
}

function nameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (u) => u === All || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))),
  );
}

export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return urlMatches(rule, a.path);
  return has(rule.apiGroups, a.group) && resourceMatches(rule, a) && nameMatches(rule, a.name);
}
