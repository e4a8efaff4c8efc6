import { expect } from 'chai';
import { MachineInstanceStateAnnotation } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { MachineError } from '../../../lib/apis/errors.js';
import { applyPhase } from '../../../lib/machine/machine-status.js';

const NOW = Date.parse('2026-11-22T06:00:00.000Z');

function machine(status: Machine['status'] = {}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'm1', namespace: 'ns' },
    spec: {},
    status,
  };
}

describe('machine status writes (updateStatus semantics)', () => {
  it('records the text of a non-Error failure cause as errorMessage, as Go prints err.Error()', () => {
    const m = machine({ phase: 'Running' });
    applyPhase(m, machine({ phase: 'Running' }), 'Failed', 'instance quota exceeded', NOW);
    expect(m.status?.errorMessage).to.equal('instance quota exceeded');
    expect(m.status?.errorReason).to.equal(undefined);
  });

  it('never dumps a thrown non-Error object (it may carry credentials) into errorMessage', () => {
    const m = machine({ phase: 'Running' });
    applyPhase(
      m,
      machine({ phase: 'Running' }),
      'Failed',
      { code: 403, headers: { authorization: 'Bearer s3cret' } },
      NOW,
    );
    expect(m.status?.errorMessage).to.equal('unexpected object thrown');
    const n = machine({ phase: 'Running' });
    applyPhase(
      n,
      machine({ phase: 'Running' }),
      'Failed',
      { message: 'AccessDenied', headers: { authorization: 'Bearer s3cret' } },
      NOW,
    );
    expect(n.status?.errorMessage).to.equal('AccessDenied');
  });

  it('takes errorReason and errorMessage from a MachineError and marks the instance state Unknown', () => {
    const m = machine({ phase: 'Running', providerStatus: { instanceState: 'running', vmState: 'ok', state: 'kept' } });
    applyPhase(
      m,
      machine({ phase: 'Running' }),
      'Failed',
      new Error('wrapped', { cause: new MachineError('InvalidConfiguration', 'bad ami') }),
      NOW,
    );
    expect(m.status).to.include({ errorReason: 'InvalidConfiguration', errorMessage: 'bad ami' });
    expect(m.status?.providerStatus).to.deep.equal({ instanceState: 'Unknown', vmState: 'Unknown', state: 'kept' });
    expect(m.metadata.annotations?.[MachineInstanceStateAnnotation]).to.equal('Unknown');
  });

  it('wipes errorReason/errorMessage on a non-Failed write and ignores the cause given with it', () => {
    const m = machine({ phase: 'Provisioned', errorReason: 'CreateError', errorMessage: 'old' });
    applyPhase(
      m,
      machine({ phase: 'Provisioned', errorReason: 'CreateError', errorMessage: 'old' }),
      'Running',
      new Error('ignored'),
      NOW,
    );
    expect(m.status?.errorReason).to.equal(undefined);
    expect(m.status?.errorMessage).to.equal(undefined);
  });

  it('moves lastUpdated only when the status changed', () => {
    const first = machine({ phase: 'Running' });
    applyPhase(first, machine({ phase: 'Provisioned' }), 'Running', undefined, NOW);
    expect(first.status?.lastUpdated).to.equal('2026-11-22T06:00:00Z');

    const settled = structuredClone(first);
    const again = structuredClone(first);
    applyPhase(again, settled, 'Running', undefined, NOW + 60_000);
    expect(again.status?.lastUpdated).to.equal('2026-11-22T06:00:00Z');
  });
});
