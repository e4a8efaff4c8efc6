// The MachineSet's UpToDate condition, which `kubectl describe` shows and `kubectl wait
// --for=condition=UpToDate` waits on: True when every Machine was made from the current template; otherwise
// False with the reason the rollout is where it is, and the counts in its message (conditions are the one place
// in status the operator's CRD keeps for them).
import {
  OnDeleteReason,
  RollingUpdateReason,
  RolloutPausedAnnotation,
  RolloutPausedReason,
  RolloutStalledReason,
  RolloutStrategyAnnotation,
  UpToDateCondition,
  UpToDateReason,
} from '../apis/constants.js';
import { falseCondition, trueConditionWithReason } from '../apis/conditions.js';
import type { Condition } from '../apis/machine-types.js';
import type { RolloutPlan } from './rollout-planner.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function countsMessage(plan: RolloutPlan, replicas: number): string {
  const c = plan.counts;
  const deleting = c.outdatedDeleting > 0 ? ` (${c.outdatedDeleting} being deleted)` : '';
  return `${c.upToDate} of ${replicas} up to date, ${c.outdated} outdated${deleting}, ${c.available} available`;
}

/** The condition for `plan`; `failed` names the up-to-date Machine that stalls the rollout, when one does. */
export function upToDateCondition(
  plan: RolloutPlan,
  replicas: number,
  failed?: { name: string; reason: string },
): Condition {
  const counts = countsMessage(plan, replicas);
  switch (plan.state) {
    case 'UpToDate':
      return trueConditionWithReason(
        UpToDateCondition,
        UpToDateReason,
        `${plural(plan.counts.upToDate, 'Machine')} match the template`,
      );
    case 'RollingUpdate':
      return falseCondition(
        UpToDateCondition,
        RollingUpdateReason,
        'Info',
        `Replacing outdated Machines: ${counts} (at least ${plan.minAvailable ?? replicas} must be, at most ${plan.maxTotal ?? replicas} Machines)`,
      );
    case 'RolloutStalled':
      return falseCondition(
        UpToDateCondition,
        RolloutStalledReason,
        'Warning',
        `Machine ${failed?.name ?? ''} made from the current template failed${failed?.reason ? ` (${failed.reason})` : ''}; no outdated Machine is deleted until the template is fixed or reverted: ${counts}`,
      );
    case 'RolloutPaused':
      return falseCondition(
        UpToDateCondition,
        RolloutPausedReason,
        'Info',
        `Rollout paused by ${RolloutPausedAnnotation}: ${counts}`,
      );
    case 'OnDelete':
      return falseCondition(
        UpToDateCondition,
        OnDeleteReason,
        'Info',
        `Outdated Machines are replaced only when deleted (${RolloutStrategyAnnotation} is OnDelete): ${counts}`,
      );
  }
}
