// Validation of metadata that kube-apiserver applies to every kind: names, generateName, labels.
import type { ObjectMeta } from '../../lib/apis/meta.js';
import type { StatusCause } from './errors.js';

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const subdomainRule =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelRule =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const qualifiedRule =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueRule =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function invalidValue(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

/** 'label' for namespaces; 'path-segment' for RBAC roles and bindings (names like `system:discovery`); 'subdomain' for the rest. */
export type NameRule = 'label' | 'subdomain' | 'path-segment';

/** kube's ValidatePathSegmentName: anything that is a single URL path segment. */
function validatePathSegment(name: string, field: string): StatusCause[] {
  if (name === '.' || name === '..') return [invalidValue(field, name, `may not be '${name}'`)];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => invalidValue(field, name, `may not contain '${c}'`));
}

export function validateName(name: string, nameRule: NameRule, field = 'metadata.name'): StatusCause[] {
  if (nameRule === 'path-segment') return validatePathSegment(name, field);
  const max = nameRule === 'label' ? 63 : 253;
  const re = nameRule === 'label' ? dns1123Label : dns1123Subdomain;
  const causes: StatusCause[] = [];
  if (name.length > max) causes.push(invalidValue(field, name, `must be no more than ${max} characters`));
  if (!re.test(name)) causes.push(invalidValue(field, name, nameRule === 'label' ? labelRule : subdomainRule));
  return causes;
}

function validateLabelKey(key: string, field: string): StatusCause[] {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  const causes: StatusCause[] = [];
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !dns1123Subdomain.test(prefix))) {
    causes.push(invalidValue(field, key, `prefix part ${subdomainRule}`));
  }
  if (name.length === 0 || name.length > 63 || !qualifiedNamePart.test(name)) {
    causes.push(
      invalidValue(field, key, name.length > 63 ? 'name part must be no more than 63 characters' : qualifiedRule),
    );
  }
  return causes;
}

export function validateObjectMeta(meta: ObjectMeta, nameRule: NameRule): StatusCause[] {
  const causes: StatusCause[] = [];
  if (meta.name) causes.push(...validateName(meta.name, nameRule));
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    causes.push(...validateLabelKey(k, 'metadata.labels'));
    if (typeof v !== 'string')
      causes.push({
        reason: 'FieldValueTypeInvalid',
        message: 'Invalid value: must be a string',
        field: `metadata.labels.${k}`,
      });
    else if (v.length > 63 || (v !== '' && !qualifiedNamePart.test(v)))
      causes.push(invalidValue(`metadata.labels`, v, labelValueRule));
  }
  for (const k of Object.keys(meta.annotations ?? {})) causes.push(...validateLabelKey(k, 'metadata.annotations'));
  const annotationBytes = Object.entries(meta.annotations ?? {}).reduce(
    (n, [k, v]) => n + k.length + String(v).length,
    0,
  );
  if (annotationBytes > 256 * 1024) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most 262144 bytes`,
      field: 'metadata.annotations',
    });
  }
  for (const [i, f] of (meta.finalizers ?? []).entries()) {
    if (typeof f !== 'string' || f === '')
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `metadata.finalizers[${i}]` });
  }
  for (const [i, r] of (meta.ownerReferences ?? []).entries()) {
    for (const f of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      if (!r[f])
        causes.push({
          reason: 'FieldValueRequired',
          message: 'Required value',
          field: `metadata.ownerReferences[${i}].${f}`,
        });
    }
  }
  return causes;
}
