// Label key and value rules of Kubernetes (apimachinery validation.IsQualifiedName / IsValidLabelValue).
// Each function returns the list of broken rules, empty when the input is valid, so callers can name the
// offending key or value in their own error.

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export const MAX_LABEL_NAME_LENGTH = 63;
export const MAX_LABEL_VALUE_LENGTH = 63;
export const MAX_DNS1123_SUBDOMAIN_LENGTH = 253;

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Problems with a label key: a qualified name, `[dns-1123-subdomain/]name`. */
export function labelKeyErrors(key: string): string[] {
  const parts = key.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) {
      errs.push('prefix part must be non-empty');
    } else {
      if (prefix.length > MAX_DNS1123_SUBDOMAIN_LENGTH) {
        errs.push(`prefix part must be no more than ${MAX_DNS1123_SUBDOMAIN_LENGTH} characters`);
      }
      if (!DNS1123_SUBDOMAIN.test(prefix)) {
        errs.push(
          "prefix part must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or '.', starting and ending with an alphanumeric character (e.g. 'example.com')",
        );
      }
    }
  } else {
    return [`a qualified name ${NAME_RULE}, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) {
    errs.push('name part must be non-empty');
  } else {
    if (name.length > MAX_LABEL_NAME_LENGTH)
      errs.push(`name part must be no more than ${MAX_LABEL_NAME_LENGTH} characters`);
    if (!NAME_PART.test(name)) errs.push(`name part ${NAME_RULE} (e.g. 'MyName', 'my.name' or '123-abc')`);
  }
  return errs;
}

/** Problems with a label value: empty, or ≤ 63 characters of [A-Za-z0-9._-] starting and ending alphanumeric. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > MAX_LABEL_VALUE_LENGTH) errs.push(`must be no more than ${MAX_LABEL_VALUE_LENGTH} characters`);
  if (!LABEL_VALUE.test(value))
    errs.push(`a valid label must be an empty string or ${NAME_RULE} (e.g. 'MyValue', 'my_value' or '12345')`);
  return errs;
}

export const isValidLabelKey = (key: string): boolean => labelKeyErrors(key).length === 0;
export const isValidLabelValue = (value: string): boolean => labelValueErrors(value).length === 0;
