// What makes a MachineSet unusable: the reference's validateMachineset (a valid, non-empty selector that matches
// the template's labels), plus the delete policy and replicas, which the reference only noticed when it scaled
// down, and the rollout annotations (which the webhook refuses too, but webhooks can be bypassed).
import { selectorFromLabelSelector } from '../apis/label-selector.js';
import type { MachineSet } from '../apis/machine-types.js';
import { resolveDeletePolicy } from './delete-policy.js';
import { readRolloutSettings } from './rollout-settings.js';

export interface MachineSetFieldError {
  /** The field path, as kube-apiserver prints it: "spec.selector". */
  field: string;
  value: unknown;
  detail: string;
}

export function formatFieldError(e: MachineSetFieldError): string {
  return `${e.field}: Invalid value: ${JSON.stringify(e.value) ?? 'null'}: ${e.detail}`;
}

/** One error: the message alone; several: "[a, b]" (apimachinery's aggregate format). */
export function aggregateFieldErrors(errors: readonly MachineSetFieldError[]): string {
  const messages = errors.map(formatFieldError);
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

export function validateMachineSet(ms: MachineSet): MachineSetFieldError[] {
  const errors: MachineSetFieldError[] = [];
  const selector = ms.spec?.selector ?? {};
  const count = Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
  if (count === 0) {
    errors.push({ field: 'spec.selector', value: selector, detail: 'empty selector is not valid for MachineSet.' });
  }
  try {
    const parsed = selectorFromLabelSelector(selector);
    const templateLabels = ms.spec?.template?.metadata?.labels;
    if (!parsed.matches(templateLabels)) {
      errors.push({
        field: 'spec.template.metadata.labels',
        value: templateLabels ?? {},
        detail: '`selector` does not match template `labels`',
      });
    }
  } catch (err) {
    errors.push({
      field: 'spec.selector',
      value: selector,
      detail: `invalid label selector: ${(err as Error).message}`,
    });
  }
  const replicas = ms.spec?.replicas;
  if (replicas === undefined || replicas === null) {
    // The reference's own words for this case (it only noticed when syncing replicas).
    errors.push({
      field: 'spec.replicas',
      value: null,
      detail: `the Replicas field in Spec for machineset ${ms.metadata.name ?? ''} is nil, this should not be allowed`,
    });
  } else if (!Number.isInteger(replicas) || replicas < 0) {
    errors.push({ field: 'spec.replicas', value: replicas, detail: 'must be a non-negative integer' });
  }
  try {
    resolveDeletePolicy(ms.spec?.deletePolicy);
  } catch (err) {
    errors.push({ field: 'spec.deletePolicy', value: ms.spec?.deletePolicy, detail: (err as Error).message });
  }
  errors.push(...readRolloutSettings(ms).errors);
  return errors;
}

export class MachineSetValidationError extends Error {
  override readonly name = 'MachineSetValidationError';
  constructor(
    readonly machineSetName: string,
    readonly errors: MachineSetFieldError[],
  ) {
    super(`"${machineSetName}" machineset validation failed: ${aggregateFieldErrors(errors)}`);
  }
}
