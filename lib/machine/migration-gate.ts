// The MachineAPIMigration feature gate for Machines (the MachineSet controller applies the same gate to
// MachineSets): only a Machine whose status.authoritativeAPI is MachineAPI is reconciled; the Paused
// condition says which API is in charge.
import { NotPausedConditionReason, PausedCondition, PausedConditionReason } from '../apis/constants.js';
import { falseCondition, getCondition, isEquivalentTo, trueConditionWithReason } from '../apis/conditions.js';
import type { Condition, Machine, MachineAuthority } from '../apis/machine-types.js';

export type MachineMigrationDecision =
  /** status.authoritativeAPI is empty: copy spec.authoritativeAPI to it and stop (that write brings us back). */
  | { kind: 'sync-authority'; authoritativeAPI: MachineAuthority }
  /** Another API is in charge: stop, recording Paused=True first when `condition` is set (it changed). */
  | { kind: 'paused'; condition?: Condition }
  /** Machine API is in charge: carry on, recording Paused=False first when `condition` is set (it changed). */
  | { kind: 'active'; condition?: Condition }
  /** A value this controller does not know: stop without writing. */
  | { kind: 'unknown'; authoritativeAPI: string };

export function machineMigrationDecision(machine: Machine): MachineMigrationDecision {
  const authority = machine.status?.authoritativeAPI ?? '';
  const ifChanged = (c: Condition): Condition | undefined =>
    isEquivalentTo(getCondition(machine.status?.conditions, PausedCondition), c) ? undefined : c;
  switch (authority) {
    case '':
      return { kind: 'sync-authority', authoritativeAPI: machine.spec?.authoritativeAPI ?? 'MachineAPI' };
    case 'ClusterAPI':
    case 'Migrating':
      return {
        kind: 'paused',
        condition: ifChanged(
          trueConditionWithReason(
            PausedCondition,
            PausedConditionReason,
            `The AuthoritativeAPI status is set to '${authority}'`,
          ),
        ),
      };
    case 'MachineAPI':
      return {
        kind: 'active',
        condition: ifChanged(
          falseCondition(
            PausedCondition,
            NotPausedConditionReason,
            'Info',
            "The AuthoritativeAPI status is set to 'MachineAPI'",
          ),
        ),
      };
    default:
      return { kind: 'unknown', authoritativeAPI: authority };
  }
}
