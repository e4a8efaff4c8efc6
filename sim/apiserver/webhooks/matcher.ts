// Which webhooks a request reaches, decided as kube-apiserver decides: the namespaceSelector (labels of
// the request's namespace, or of the Namespace itself), the objectSelector (labels of the new or the old
// object), then the rules (operation, scope, API group, version, resource and subresource, with
// wildcards). With matchPolicy Equivalent a rule naming another served version of the same resource
// matches too, and the webhook is sent the object in the version its rule names.
import type { LabelSelector } from '../../../lib/apis/meta.js';
import { LabelSelectorError, selectorFromLabelSelector } from '../../../lib/apis/label-selector.js';
import * as E from '../errors.js';
import { isPlainObject } from '../json.js';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from './attributes.js';
import type { RuleWithOperations, Webhook } from './configuration.js';

export interface Invocation {
  hook: Webhook;
  /** configuration name and index: identifies the webhook across reinvocation. */
  uid: string;
  /** The resource and kind the webhook is told about (an equivalent version's under matchPolicy Equivalent). */
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

/** Looks up a namespace's labels; undefined when the namespace does not exist. */
export type NamespaceLabels = (namespace: string) => Record<string, string> | undefined;

function exactOrWildcard(items: string[] | undefined, requested: string): boolean {
  return (items ?? []).some((i) => i === '*' || i === requested);
}

function isNamespaceRequest(attrs: AdmissionAttributes): boolean {
  return attrs.type.group === '' && attrs.type.plural === 'namespaces';
}

function scopeMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  const scope = rule.scope ?? '*';
  if (scope === '*') return true;
  // A request on a Namespace carries the namespace's name as its namespace, yet namespaces are cluster-scoped.
  if (scope === 'Namespaced') return !isNamespaceRequest(attrs) && attrs.namespace !== '';
  if (scope === 'Cluster') return isNamespaceRequest(attrs) || attrs.namespace === '';
  return false;
}

function resourceMatches(rule: RuleWithOperations, resource: string, subresource: string): boolean {
  return (rule.resources ?? []).some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

export function ruleMatches(rule: RuleWithOperations, attrs: AdmissionAttributes, gvr: GroupVersionResource): boolean {
  return (
    scopeMatches(rule, attrs) &&
    exactOrWildcard(rule.operations, attrs.operation) &&
    exactOrWildcard(rule.apiGroups, gvr.group) &&
    exactOrWildcard(rule.apiVersions, gvr.version) &&
    resourceMatches(rule, gvr.resource, attrs.subresource)
  );
}

function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  try {
    return selectorFromLabelSelector(sel).matches(labels);
  } catch (err) {
    // Stored configurations were validated; a selector that still does not parse selects nothing.
    if (err instanceof LabelSelectorError) return false;
    throw err;
  }
}

function labelsOf(obj: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const meta = obj?.metadata;
  return isPlainObject(meta) && isPlainObject(meta.labels) ? (meta.labels as Record<string, string>) : undefined;
}

function isEmptySelector(sel: LabelSelector | undefined): boolean {
  return !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);
}

/** Whether the namespaceSelector admits the request: a NotFound error when the namespace is gone. */
function namespaceMatches(
  hook: Webhook,
  attrs: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): boolean | E.StatusError {
  if (attrs.namespace === '' && !isNamespaceRequest(attrs)) return true;
  if (isEmptySelector(hook.namespaceSelector)) return true;
  let labels: Record<string, string> | undefined;
  if (
    isNamespaceRequest(attrs) &&
    attrs.subresource === '' &&
    (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')
  ) {
    labels = labelsOf(attrs.object);
  } else {
    const name = isNamespaceRequest(attrs) ? attrs.name : attrs.namespace;
    labels = namespaceLabels(name);
    if (labels === undefined) return E.notFound({ group: '', resource: 'namespaces' }, name);
  }
  return selectorMatches(hook.namespaceSelector, labels);
}

function objectMatches(hook: Webhook, attrs: AdmissionAttributes): boolean {
  if (isEmptySelector(hook.objectSelector)) return true;
  const matches = (o: Record<string, unknown> | undefined) =>
    o !== undefined && selectorMatches(hook.objectSelector, labelsOf(o) ?? {});
  return matches(attrs.object) || matches(attrs.oldObject);
}

/** The invocation of `hook` for this request, or undefined when the webhook does not apply. */
export function matchWebhook(
  hook: Webhook,
  uid: string,
  attrs: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): Invocation | undefined {
  const ns = namespaceMatches(hook, attrs, namespaceLabels);
  if (ns === false) return undefined;
  if (!objectMatches(hook, attrs)) return undefined;
  const requested: GroupVersionResource = {
    group: attrs.type.group,
    version: attrs.version,
    resource: attrs.type.plural,
  };
  const rules = hook.rules ?? [];
  let invocation: Invocation | undefined;
  if (rules.some((r) => ruleMatches(r, attrs, requested))) {
    invocation = { hook, uid, resource: requested, kind: attrs.kind };
  } else if (hook.matchPolicy !== 'Exact') {
    // Earlier rules first, then each other served version of the same resource.
    const others = attrs.type.versions.map((v) => v.name).filter((v) => v !== attrs.version);
    outer: for (const rule of rules) {
      for (const version of others) {
        const gvr = { ...requested, version };
        if (ruleMatches(rule, attrs, gvr)) {
          const sameGroupKind = attrs.kind.group === attrs.type.group;
          invocation = { hook, uid, resource: gvr, kind: sameGroupKind ? { ...attrs.kind, version } : attrs.kind };
          break outer;
        }
      }
    }
  }
  if (!invocation) return undefined;
  if (ns instanceof E.StatusError) throw ns;
  return invocation;
}
