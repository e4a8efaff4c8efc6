import { expect } from 'chai';
import type { MachineSet } from '../../../lib/apis/machine-types.js';
import { InvalidMachineConfigurationError } from '../../../lib/apis/errors.js';
import { TableInstanceTypeCatalog } from '../../../lib/machineset/table-instance-type-catalog.js';
import { createLogger } from '../../../lib/base/structured-logger.js';

const ctx = { signal: new AbortController().signal, log: createLogger({ level: -1 }) };
const ms = (instanceType?: string): MachineSet => ({
  metadata: { name: 'ms' },
  spec: { selector: {}, template: { spec: { providerSpec: { value: instanceType ? { instanceType } : {} } } } },
});

describe('TableInstanceTypeCatalog', () => {
  const catalog = new TableInstanceTypeCatalog(
    [{ name: 'bx2-4x16', vCPU: 4, memoryMiB: 16384, gpuCount: 0, architecture: 'amd64' }],
    (m) => {
      const t = m.spec?.template?.spec?.providerSpec?.value?.instanceType;
      if (typeof t !== 'string') throw new InvalidMachineConfigurationError('profile must be set');
      return t;
    },
  );

  it('finds a type in its table and answers undefined for one it does not know', async () => {
    expect(await catalog.lookup(ms('bx2-4x16'), ctx)).to.deep.include({ vCPU: 4, memoryMiB: 16384 });
    expect(await catalog.lookup(ms('bx2-99x99'), ctx)).to.equal(undefined);
  });

  it('passes on the invalid-configuration error of the name reader', async () => {
    let err: unknown;
    try {
      await catalog.lookup(ms(), ctx);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
  });
});
