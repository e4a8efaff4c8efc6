// The MachineAPIMigration feature gate for MachineSets (the same gate the machine controller applies to
// Machines): only a MachineSet whose status.authoritativeAPI is MachineAPI is reconciled; the Paused
// condition says which API is in charge.
import { NotPausedConditionReason, PausedCondition, PausedConditionReason } from '../apis/constants.js';
import {
  falseCondition,
  getCondition,
  isEquivalentTo,
  setCondition,
  trueConditionWithReason,
} from '../apis/conditions.js';
import type { Condition, MachineSet } from '../apis/machine-types.js';

export type MigrationDecision =
  /** status.authoritativeAPI is empty: copy spec.authoritativeAPI to it and stop (that write brings us back). */
  | { kind: 'sync-authority'; authoritativeAPI: string }
  /** Another API is in charge: record Paused=True (conditions set when they changed) and stop. */
  | { kind: 'paused'; conditions?: Condition[] }
  /** Machine API is in charge: carry on, with Paused=False in these conditions. */
  | { kind: 'active'; conditions: Condition[] }
  /** A value this controller does not know: stop without writing. */
  | { kind: 'unknown'; authoritativeAPI: string };

export function migrationDecision(ms: MachineSet, now: number): MigrationDecision {
  const authority = ms.status?.authoritativeAPI ?? '';
  const current = ms.status?.conditions;
  switch (authority) {
    case '':
      return { kind: 'sync-authority', authoritativeAPI: ms.spec?.authoritativeAPI ?? 'MachineAPI' };
    case 'ClusterAPI':
    case 'Migrating': {
      const c = trueConditionWithReason(
        PausedCondition,
        PausedConditionReason,
        `The AuthoritativeAPI status is set to '${authority}'`,
      );
      if (isEquivalentTo(getCondition(current, PausedCondition), c)) return { kind: 'paused' };
      return { kind: 'paused', conditions: setCondition(current, c, now) };
    }
    case 'MachineAPI':
      return {
        kind: 'active',
        conditions: setCondition(
          current,
          falseCondition(
            PausedCondition,
            NotPausedConditionReason,
            'Info',
            "The AuthoritativeAPI status is set to 'MachineAPI'",
          ),
          now,
        ),
      };
    default:
      return { kind: 'unknown', authoritativeAPI: authority };
  }
}
