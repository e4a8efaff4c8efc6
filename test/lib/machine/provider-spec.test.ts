import { expect } from 'chai';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { InvalidMachineConfigurationError, isInvalidMachineConfiguration } from '../../../lib/apis/errors.js';
import { decodeProviderSpec } from '../../../lib/machine/provider-spec.js';

interface Config {
  instanceType: string;
}

const machine = (value: unknown): Machine => ({
  metadata: { name: 'worker-a' },
  spec: { providerSpec: { value: value as Record<string, unknown> } },
});

const decodeConfig = (v: Record<string, unknown>): Config => {
  if (typeof v.instanceType !== 'string') {
    throw new InvalidMachineConfigurationError('instanceType must be a string', {
      field: 'spec.providerSpec.value.instanceType',
    });
  }
  return { instanceType: v.instanceType };
};

function caught(fn: () => unknown): InvalidMachineConfigurationError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    return err as InvalidMachineConfigurationError;
  }
  expect.fail('expected an InvalidMachineConfigurationError');
}

describe('decodeProviderSpec', () => {
  it('hands the value to the decoder and returns its result', () => {
    expect(decodeProviderSpec(machine({ instanceType: 'm6i.large' }), decodeConfig)).to.deep.equal({
      instanceType: 'm6i.large',
    });
  });

  it('a missing or null value is a terminal configuration error naming spec.providerSpec.value', () => {
    for (const m of [
      machine(undefined),
      machine(null),
      { metadata: { name: 'worker-a' } } as Machine,
      { metadata: { name: 'worker-a' }, spec: {} } as Machine,
    ]) {
      const err = caught(() => decodeProviderSpec(m, decodeConfig));
      expect(err.field).to.equal('spec.providerSpec.value');
      expect(err.message).to.contain('worker-a').and.contain('spec.providerSpec.value');
      expect(isInvalidMachineConfiguration(err)).to.equal(true);
    }
  });

  it('a value that is not an object is rejected with the type found', () => {
    expect(caught(() => decodeProviderSpec(machine('x'), decodeConfig)).message).to.contain('found string');
    expect(caught(() => decodeProviderSpec(machine([1]), decodeConfig)).message).to.contain('found array');
  });

  it("passes the decoder's own InvalidMachineConfigurationError through with its field", () => {
    const err = caught(() => decodeProviderSpec(machine({ instanceType: 3 }), decodeConfig));
    expect(err.field).to.equal('spec.providerSpec.value.instanceType');
  });

  it('wraps any other decoder failure, keeping the cause', () => {
    const boom = new SyntaxError('unexpected token');
    const err = caught(() =>
      decodeProviderSpec(machine({}), () => {
        throw boom;
      }),
    );
    expect(err.field).to.equal('spec.providerSpec.value');
    expect(err.message).to.contain('unexpected token');
    expect(err.cause).to.equal(boom);
  });
});
