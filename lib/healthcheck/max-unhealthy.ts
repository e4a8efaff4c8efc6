// The remediation budget of a MachineHealthCheck: remediation is allowed
// while the unhealthy machines are no more than spec.maxUnhealthy (read by lib/apis resolveMaxUnhealthy:
// an int, a plain-int string, or a percentage of the covered machines rounded down).
import { IntOrPercentError, resolveMaxUnhealthy, type IntOrString } from '../apis/int-or-percent.js';

export interface RemediationBudget {
  allowed: boolean;
  /** max(0, maxUnhealthy − unhealthy); 0 when not allowed. */
  remediationsAllowed: number;
  /** Why maxUnhealthy could not be read, when it could not (then nothing is allowed). */
  error?: IntOrPercentError;
}

export function remediationBudget(
  maxUnhealthy: IntOrString | undefined | null,
  expected: number,
  unhealthy: number,
): RemediationBudget {
  let max: number;
  try {
    max = resolveMaxUnhealthy(maxUnhealthy, expected);
  } catch (err) {
    if (err instanceof IntOrPercentError) return { allowed: false, remediationsAllowed: 0, error: err };
    throw err;
  }
  const allowed = unhealthy <= max;
  return { allowed, remediationsAllowed: allowed ? Math.max(0, max - unhealthy) : 0 };
}
