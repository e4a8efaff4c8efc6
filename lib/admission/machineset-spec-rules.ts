// The rules on a MachineSet outside its providerSpec: the selector must select the template's labels (or
// the MachineSet would create Machines it never sees and create more forever), and once set it is immutable; the
// rollout annotations must be usable (the same reader the controller acts on).
import { selectorFromLabelSelector } from '../apis/label-selector.js';
import type { MachineSet } from '../apis/machine-types.js';
import { forbiddenValue, invalidValue, type FieldIssue } from '../cloud/spec-reader.js';
import { deepEqual } from '../machine/merge-patch.js';
import { readRolloutSettings } from '../machineset/rollout-settings.js';

export function validateMachineSetSpec(ms: MachineSet, old: MachineSet | undefined): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const selector = ms.spec?.selector ?? {};
  if (old && !deepEqual(old.spec?.selector ?? {}, selector))
    issues.push(forbiddenValue('spec.selector', 'selector is immutable'));
  let parsed;
  try {
    parsed = selectorFromLabelSelector(selector);
  } catch (err) {
    issues.push(
      invalidValue(
        'spec.selector',
        selector,
        `could not convert label selector to selector: ${(err as Error).message}`,
      ),
    );
  }
  const labels = ms.spec?.template?.metadata?.labels ?? {};
  if (parsed && !parsed.matches(labels))
    issues.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  for (const e of readRolloutSettings(ms).errors) issues.push(invalidValue(e.field, e.value, e.detail));
  return issues;
}
