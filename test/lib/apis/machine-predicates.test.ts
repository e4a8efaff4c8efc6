import { expect } from 'chai';
import { isMachineFailed, isMachineProvisioned, machineHasNode } from '../../../lib/apis/machine-predicates.js';
import type { Machine } from '../../../lib/apis/machine-types.js';

const m = (spec: Machine['spec'], status: Machine['status']): Machine => ({ metadata: { name: 'm' }, spec, status });

describe('machine predicates', () => {
  it('a machine is provisioned once it has addresses or a providerID', () => {
    expect(isMachineProvisioned(m(undefined, undefined))).to.equal(false);
    expect(isMachineProvisioned(m({ providerID: '' }, { addresses: [] }))).to.equal(false);
    expect(isMachineProvisioned(m({ providerID: 'aws:///us-east-1a/i-1' }, undefined))).to.equal(true);
    expect(isMachineProvisioned(m(undefined, { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }))).to.equal(
      true,
    );
  });

  it('a machine has a node when status.nodeRef names one', () => {
    expect(machineHasNode(m(undefined, undefined))).to.equal(false);
    expect(machineHasNode(m(undefined, { nodeRef: {} }))).to.equal(false);
    expect(machineHasNode(m(undefined, { nodeRef: { kind: 'Node', name: 'ip-10-0-0-1' } }))).to.equal(true);
  });

  it('a machine is failed only in phase Failed', () => {
    expect(isMachineFailed(m(undefined, { phase: 'Failed' }))).to.equal(true);
    expect(isMachineFailed(m(undefined, { phase: 'Running' }))).to.equal(false);
    expect(isMachineFailed(m(undefined, undefined))).to.equal(false);
  });
});
