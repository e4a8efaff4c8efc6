// The manager a write is recorded under: the request's fieldManager, else what kube-apiserver derives
// from the User-Agent (the part before the first "/", printable characters only, at most 128 of them),
// so `kubectl scale` (which names no manager) is recorded as "kubectl". A fieldManager the request
// names must fit the same rules: a 422 on its options kind (CreateOptions, UpdateOptions, PatchOptions).
import * as E from '../errors.js';

const MaxManagerLength = 128;

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

function printable(s: string): string {
  return [...s].filter((c) => /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c)).join('');
}

export function managerFromRequest(
  fieldManager: string | null,
  userAgent: string | undefined,
  optionsKind: OptionsKind,
): string {
  if (fieldManager !== null && fieldManager !== '') {
    const invalid = (reason: string, message: string) =>
      E.invalid(optionsKind, 'meta.k8s.io', '', [{ reason, message, field: 'fieldManager' }]);
    if (Buffer.byteLength(fieldManager) > MaxManagerLength)
      throw invalid('FieldValueTooLong', `Too long: may not be more than ${MaxManagerLength} bytes`);
    if (printable(fieldManager) !== fieldManager)
      throw invalid(
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify(fieldManager)}: must only contain printable characters`,
      );
    return fieldManager;
  }
  return [...printable((userAgent ?? '').split('/')[0] ?? '')].slice(0, MaxManagerLength).join('');
}
