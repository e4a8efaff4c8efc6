// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration:
// their shape, the defaults kube-apiserver fills in on write, and its validation, worded as its field
// errors are, so a bad configuration is refused with the field and the rule named.
import type { KubeObject, LabelSelector } from '../../../lib/apis/meta.js';
import { LabelSelectorError, selectorFromLabelSelector } from '../../../lib/apis/label-selector.js';
import type { StatusCause } from '../errors.js';
import { isPlainObject } from '../json.js';
import { validateName } from '../object-meta.js';

export const AdmissionRegistrationGroup = 'admissionregistration.k8s.io';
export const MutatingPlural = 'mutatingwebhookconfigurations';
export const ValidatingPlural = 'validatingwebhookconfigurations';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface RuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  scope?: string;
}

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 of PEM certificates that must have signed the webhook's serving certificate. */
  caBundle?: string;
}

export interface Webhook {
  name?: string;
  clientConfig?: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: string;
}

export interface WebhookConfiguration extends KubeObject {
  webhooks?: Webhook[];
}

const operations = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];
const scopes = ['Cluster', 'Namespaced', '*'];
const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const reinvocationPolicies = ['IfNeeded', 'Never'];
/** The only classes a v1 configuration may declare; Some and Unknown exist only in the retired v1beta1. */
const sideEffectClasses = ['None', 'NoneOnDryRun'];
/** This server sends AdmissionReview v1 only. */
const reviewVersions = ['v1'];

/** Fills the fields kube-apiserver defaults on a v1 configuration (mutates the object). */
export function defaultWebhookConfiguration(config: WebhookConfiguration, mutating: boolean): void {
  if (!Array.isArray(config.webhooks)) return;
  for (const hook of config.webhooks) {
    if (!isPlainObject(hook)) continue;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    const service = isPlainObject(hook.clientConfig) ? hook.clientConfig.service : undefined;
    if (isPlainObject(service)) service.port ??= 443;
    for (const rule of Array.isArray(hook.rules) ? hook.rules : []) {
      if (isPlainObject(rule)) rule.scope ??= '*';
    }
  }
}

type Causes = StatusCause[];

function required(causes: Causes, field: string, detail = ''): void {
  causes.push({
    reason: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  });
}

function invalid(causes: Causes, field: string, value: unknown, detail: string): void {
  causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field });
}

function notSupported(causes: Causes, field: string, value: unknown, supported: string[]): void {
  causes.push({
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
    field,
  });
}

function stringList(causes: Causes, field: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    invalid(causes, field, value, 'must be a list of strings');
    return undefined;
  }
  return value as string[];
}

/** A required, non-empty list where '*' must stand alone (apiGroups, apiVersions, operations). */
function wildcardList(causes: Causes, field: string, value: unknown, what: string): string[] {
  const list = stringList(causes, field, value);
  if (!list || list.length === 0) {
    if (list !== undefined || value === undefined) required(causes, field);
    return [];
  }
  if (list.includes('*') && list.length > 1)
    invalid(causes, field, list, `if '*' is present, must not specify other ${what}`);
  return list;
}

function validateResources(causes: Causes, field: string, value: unknown): void {
  const list = stringList(causes, field, value);
  if (!list || list.length === 0) {
    if (list !== undefined || value === undefined) required(causes, field);
    return;
  }
  const withWildcardSub = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  list.forEach((entry, i) => {
    if (entry === '') {
      required(causes, `${field}[${i}]`);
      return;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) withoutSub = true;
    else if (entry.slice(slash + 1) === '*') withWildcardSub.add(entry.slice(0, slash));
  });
  if (doubleWildcard && list.length > 1)
    invalid(causes, field, list, "if '*/*' is present, must not specify other resources");
  if (singleWildcard && withoutSub && list.filter((e) => !e.includes('/')).length > 1) {
    invalid(causes, field, list, "if '*' is present, must not specify other resources without subresources");
  }
  list.forEach((entry, i) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    if (slash >= 0 && entry.slice(slash + 1) !== '*' && withWildcardSub.has(res)) {
      invalid(causes, `${field}[${i}]`, entry, `if '${res}/*' is present, must not specify ${entry}`);
    }
  });
}

function validateRule(causes: Causes, field: string, rule: unknown): void {
  if (!isPlainObject(rule)) {
    invalid(causes, field, rule, 'must be an object');
    return;
  }
  const ops = wildcardList(causes, `${field}.operations`, rule.operations, 'operations');
  ops.forEach((op, i) => {
    if (!operations.includes(op)) notSupported(causes, `${field}.operations[${i}]`, op, operations);
  });
  wildcardList(causes, `${field}.apiGroups`, rule.apiGroups, 'API groups');
  const versions = wildcardList(causes, `${field}.apiVersions`, rule.apiVersions, 'API versions');
  versions.forEach((v, i) => {
    if (v === '') required(causes, `${field}.apiVersions[${i}]`);
  });
  validateResources(causes, `${field}.resources`, rule.resources);
  if (rule.scope !== undefined && !scopes.includes(rule.scope as string))
    notSupported(causes, `${field}.scope`, rule.scope, scopes);
}

function validateUrl(causes: Causes, field: string, raw: unknown): void {
  if (typeof raw !== 'string') {
    invalid(causes, field, raw, 'must be a string');
    return;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    invalid(causes, field, raw, 'must be a valid URL');
    return;
  }
  if (u.protocol !== 'https:') invalid(causes, field, raw, "'https' is the only allowed URL scheme");
  if (u.hostname === '') invalid(causes, field, raw, 'host must be specified');
  if (u.username !== '' || u.password !== '')
    invalid(causes, field, raw, 'user information is not permitted in the URL');
  if (u.hash !== '' || raw.includes('#')) invalid(causes, field, raw, 'fragments are not permitted in the URL');
  if (u.search !== '' || raw.includes('?'))
    invalid(causes, field, raw, 'query parameters are not permitted in the URL');
}

function validateService(causes: Causes, field: string, svc: unknown): void {
  if (!isPlainObject(svc)) {
    invalid(causes, field, svc, 'must be an object');
    return;
  }
  if (typeof svc.name !== 'string' || svc.name === '') required(causes, `${field}.name`, 'service name is required');
  else causes.push(...validateName(svc.name, 'label', `${field}.name`));
  if (typeof svc.namespace !== 'string' || svc.namespace === '')
    required(causes, `${field}.namespace`, 'service namespace is required');
  else causes.push(...validateName(svc.namespace, 'label', `${field}.namespace`));
  const port = svc.port;
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)) {
    invalid(causes, `${field}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive');
  }
  const path = svc.path;
  if (path === undefined) return;
  if (typeof path !== 'string' || !path.startsWith('/')) {
    invalid(causes, `${field}.path`, path, "must start with a '/'");
    return;
  }
  if (
    path.length > 1 &&
    path
      .split('/')
      .slice(1)
      .some((seg) => seg === '')
  )
    invalid(causes, `${field}.path`, path, 'segment[n] may not be empty');
}

function validateClientConfig(causes: Causes, field: string, cc: unknown): void {
  if (!isPlainObject(cc)) {
    required(causes, field, 'exactly one of url or service is required');
    return;
  }
  const hasUrl = cc.url !== undefined;
  const hasService = cc.service !== undefined;
  if (hasUrl === hasService) required(causes, field, 'exactly one of url or service is required');
  if (hasUrl) validateUrl(causes, `${field}.url`, cc.url);
  if (hasService) validateService(causes, `${field}.service`, cc.service);
  if (cc.caBundle !== undefined && (typeof cc.caBundle !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(cc.caBundle))) {
    invalid(causes, `${field}.caBundle`, '<bytes>', 'must be base64-encoded bytes');
  }
}

function validateSelector(causes: Causes, field: string, sel: unknown): void {
  if (sel === undefined) return;
  if (!isPlainObject(sel)) {
    invalid(causes, field, sel, 'must be a label selector object');
    return;
  }
  try {
    selectorFromLabelSelector(sel);
  } catch (err) {
    if (!(err instanceof LabelSelectorError)) throw err;
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${err.message}`, field });
  }
}

/** fully-qualified webhook names: a DNS subdomain with at least three segments, as kube demands. */
function validateWebhookName(causes: Causes, field: string, name: unknown): void {
  if (typeof name !== 'string' || name === '') {
    required(causes, field);
    return;
  }
  const sub = validateName(name, 'subdomain', field);
  causes.push(...sub);
  if (sub.length === 0 && name.split('.').length < 3)
    invalid(causes, field, name, 'should be a domain with at least three segments separated by dots');
}

function validateWebhook(causes: Causes, field: string, hook: unknown, mutating: boolean): void {
  if (!isPlainObject(hook)) {
    invalid(causes, field, hook, 'must be an object');
    return;
  }
  validateWebhookName(causes, `${field}.name`, hook.name);
  validateClientConfig(causes, `${field}.clientConfig`, hook.clientConfig);
  if (hook.rules !== undefined && !Array.isArray(hook.rules))
    invalid(causes, `${field}.rules`, hook.rules, 'must be a list');
  (Array.isArray(hook.rules) ? hook.rules : []).forEach((r, i) => validateRule(causes, `${field}.rules[${i}]`, r));
  if (!failurePolicies.includes(hook.failurePolicy as string))
    notSupported(causes, `${field}.failurePolicy`, hook.failurePolicy, failurePolicies);
  if (!matchPolicies.includes(hook.matchPolicy as string))
    notSupported(causes, `${field}.matchPolicy`, hook.matchPolicy, matchPolicies);
  if (hook.sideEffects === undefined)
    required(causes, `${field}.sideEffects`, `must specify one of ${sideEffectClasses.join(', ')}`);
  else if (!sideEffectClasses.includes(hook.sideEffects as string))
    notSupported(causes, `${field}.sideEffects`, hook.sideEffects, sideEffectClasses);
  const t = hook.timeoutSeconds;
  if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > 30) {
    invalid(causes, `${field}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds');
  }
  const versions = stringList(causes, `${field}.admissionReviewVersions`, hook.admissionReviewVersions);
  if (!versions || versions.length === 0) {
    if (versions !== undefined || hook.admissionReviewVersions === undefined) {
      required(causes, `${field}.admissionReviewVersions`, `must specify one of ${reviewVersions.join(', ')}`);
    }
  } else {
    const seen = new Set<string>();
    versions.forEach((v, i) => {
      if (seen.has(v)) invalid(causes, `${field}.admissionReviewVersions[${i}]`, v, 'duplicate version');
      seen.add(v);
    });
    if (!versions.some((v) => reviewVersions.includes(v))) {
      invalid(
        causes,
        `${field}.admissionReviewVersions`,
        versions,
        `must include at least one of ${reviewVersions.join(', ')}`,
      );
    }
  }
  validateSelector(causes, `${field}.namespaceSelector`, hook.namespaceSelector);
  validateSelector(causes, `${field}.objectSelector`, hook.objectSelector);
  if (mutating && !reinvocationPolicies.includes(hook.reinvocationPolicy as string)) {
    notSupported(causes, `${field}.reinvocationPolicy`, hook.reinvocationPolicy, reinvocationPolicies);
  }
}

/** The field errors of a (defaulted) configuration; empty when kube-apiserver would accept it. */
export function validateWebhookConfiguration(config: WebhookConfiguration, mutating: boolean): StatusCause[] {
  const causes: Causes = [];
  const hooks: unknown = config.webhooks;
  if (hooks === undefined) return causes;
  if (!Array.isArray(hooks)) {
    invalid(causes, 'webhooks', hooks, 'must be a list');
    return causes;
  }
  const names = new Set<string>();
  hooks.forEach((hook, i) => {
    const name = isPlainObject(hook) ? hook.name : undefined;
    if (typeof name === 'string' && name !== '') {
      if (names.has(name))
        causes.push({
          reason: 'FieldValueDuplicate',
          message: `Duplicate value: ${JSON.stringify(name)}`,
          field: `webhooks[${i}].name`,
        });
      names.add(name);
    }
    validateWebhook(causes, `webhooks[${i}]`, hook, mutating);
  });
  return causes;
}
