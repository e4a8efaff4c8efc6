import { expect } from 'chai';
import { keepBootingState, viewCanBeCurrent, type Machine } from '../../../lib/index.js';

const machine = (nodeRef?: string): Machine => ({
  metadata: { name: 'm' },
  spec: {},
  status: nodeRef ? { nodeRef: { kind: 'Node', name: nodeRef } } : {},
});
const booting = (state: string) => state === 'pending';

describe('viewCanBeCurrent', () => {
  it('accepts any earlier view while the Machine has no Node', () => {
    expect(viewCanBeCurrent(machine(), booting)('pending')).to.equal(true);
    expect(viewCanBeCurrent(machine(), booting)('running')).to.equal(true);
  });

  it('rejects an earlier view of a booting instance once the Node has registered, and accepts any other', () => {
    expect(viewCanBeCurrent(machine('n1'), booting)('pending')).to.equal(false);
    expect(viewCanBeCurrent(machine('n1'), booting)('running')).to.equal(true);
    expect(viewCanBeCurrent(machine('n1'), booting)('stopped')).to.equal(true);
  });
});

describe('keepBootingState', () => {
  const BOOTING = new Set(['pending', 'starting']);

  it('keeps the booting state recorded through a step to another booting state, and records any other state', () => {
    expect(keepBootingState('pending', 'starting', BOOTING)).to.equal('pending');
    expect(keepBootingState(undefined, 'starting', BOOTING)).to.equal('starting');
    expect(keepBootingState('pending', 'running', BOOTING)).to.equal('running');
    expect(keepBootingState('running', 'starting', BOOTING)).to.equal('starting');
  });
});
