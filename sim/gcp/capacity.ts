// Failures GCE reports inside the insert operation rather than on the call: a zone out of a machine type
// (ZONE_RESOURCE_POOL_EXHAUSTED) and regional quota (QUOTA_EXCEEDED). The instance is then never created.
import { CapacityTable, type CapacityMarket } from '../kit/index.js';
import { instanceFootprint, regionUsage } from './catalog-json.js';
import type { GceState } from './gce-state.js';
import type { GceInstance, GceOperation } from './model.js';

/**
 * Machine types no zone has capacity for until a test turns it on: what a project without reservations sees
 * for the largest GPU types.
 */
export const DEFAULT_EXHAUSTED_MACHINE_TYPES: readonly string[] = ['a3-highgpu-8g'];

export class CapacityRules {
  /** Which machine types are stocked out where. */
  readonly stockouts = new CapacityTable(DEFAULT_EXHAUSTED_MACHINE_TYPES);

  /** A zone's setting wins over every zone's ("*"), a market's (standard or Spot/preemptible) over every market's. */
  setStockout(machineType: string, zone: string, exhausted: boolean, market: CapacityMarket | '*' = '*'): void {
    this.stockouts.set(machineType, zone, !exhausted, market);
  }

  /** The operation error for inserting `inst` now, or undefined when it fits. */
  insertFailure(state: GceState, inst: GceInstance, machineType: string): GceOperation['error'] {
    const market = instanceFootprint(state, inst).preemptible ? 'spot' : 'on-demand';
    if (this.stockouts.isExhausted(machineType, inst.zone, market)) {
      return {
        code: 'ZONE_RESOURCE_POOL_EXHAUSTED',
        message: `The zone 'projects/${inst.project}/zones/${inst.zone}' does not have enough resources available to fulfill the request.  Try a different zone, or try again later.`,
        httpStatus: 503,
        httpMessage: 'SERVICE UNAVAILABLE',
      };
    }
    const region = state.regionOf(inst.zone);
    const limits = state.world.regions.find((r) => r.name === region)?.quotaLimits ?? {};
    const usage = regionUsage(state, inst.project, region);
    const fp = instanceFootprint(state, inst);
    const wants: [string, number][] = [
      ['INSTANCES', 1],
      [fp.preemptible ? 'PREEMPTIBLE_CPUS' : 'CPUS', fp.cpus],
      ...fp.accelerators.map((a): [string, number] => [`${fp.preemptible ? 'PREEMPTIBLE_' : ''}${a.metric}`, a.count]),
    ];
    for (const [metric, n] of wants) {
      const limit = limits[metric];
      if (limit === undefined || n === 0) continue;
      if ((usage[metric] ?? 0) + n > limit) {
        return {
          code: 'QUOTA_EXCEEDED',
          message: `Quota '${metric}' exceeded.  Limit: ${limit.toFixed(1)} in region ${region}.`,
          httpStatus: 403,
          httpMessage: 'FORBIDDEN',
        };
      }
    }
    return undefined;
  }
}
