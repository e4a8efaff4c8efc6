// An InstanceTypeCatalog over a fixed table: for clouds whose instance types are known ahead of time, and for
// tests of anything that consumes a catalog.
import type { MachineSet } from '../apis/machine-types.js';
import type { InstanceTypeCatalog, InstanceTypeInfo } from './instance-type-catalog.js';

/**
 * Reads the instance type name a MachineSet's template asks for (e.g. from its decoded providerSpec). Throws
 * InvalidMachineConfigurationError when the providerSpec cannot say.
 */
export type InstanceTypeNameOf = (machineSet: MachineSet) => string;

export class TableInstanceTypeCatalog implements InstanceTypeCatalog {
  private readonly byName: ReadonlyMap<string, InstanceTypeInfo>;

  constructor(
    types: readonly InstanceTypeInfo[],
    private readonly nameOf: InstanceTypeNameOf,
  ) {
    this.byName = new Map(types.map((t) => [t.name, t]));
  }

  async lookup(
    machineSet: MachineSet,
    _ctx?: Parameters<InstanceTypeCatalog['lookup']>[1],
  ): Promise<InstanceTypeInfo | undefined> {
    return this.byName.get(this.nameOf(machineSet));
  }
}
