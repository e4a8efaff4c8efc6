import { expect } from 'chai';
import { readProviderConditions, setProviderCondition, type ProviderCondition } from '../../../lib/index.js';

describe('provider-status conditions', () => {
  it('are added with the current time and keep lastTransitionTime until the status flips', () => {
    const holder: { conditions?: ProviderCondition[] } = {};
    setProviderCondition(
      holder,
      { type: 'MachineCreated', status: 'False', reason: 'MachineCreationFailed', message: 'quota' },
      't1',
    );
    setProviderCondition(
      holder,
      { type: 'MachineCreated', status: 'False', reason: 'MachineCreationFailed', message: 'quota again' },
      't2',
    );
    expect(holder.conditions).to.deep.equal([
      {
        type: 'MachineCreated',
        status: 'False',
        reason: 'MachineCreationFailed',
        message: 'quota again',
        lastTransitionTime: 't1',
      },
    ]);
    setProviderCondition(
      holder,
      { type: 'MachineCreated', status: 'True', reason: 'MachineCreationSucceeded', message: 'ok' },
      't3',
    );
    expect(holder.conditions?.[0]).to.include({ status: 'True', lastTransitionTime: 't3' });
  });

  it('are read back leniently, dropping entries without a type', () => {
    expect(readProviderConditions([{ type: 'A', status: 'True' }, { nope: 1 }, 'x'])).to.have.length(1);
    expect(readProviderConditions('nonsense')).to.equal(undefined);
  });
});
