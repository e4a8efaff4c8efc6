import { expect } from 'chai';
import type { Condition, Machine } from '../../../lib/apis/machine-types.js';
import { machineMigrationDecision } from '../../../lib/machine/migration-gate.js';

const machine = (status: Machine['status'], spec: Machine['spec'] = {}): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm' },
  spec,
  status,
});

describe('the MachineAPIMigration decision for a Machine', () => {
  it('copies spec.authoritativeAPI (MachineAPI when unset) to an empty status.authoritativeAPI', () => {
    expect(machineMigrationDecision(machine({}, { authoritativeAPI: 'ClusterAPI' }))).to.deep.equal({
      kind: 'sync-authority',
      authoritativeAPI: 'ClusterAPI',
    });
    expect(machineMigrationDecision(machine(undefined))).to.deep.equal({
      kind: 'sync-authority',
      authoritativeAPI: 'MachineAPI',
    });
  });

  it('pauses while another API is in charge, asking for Paused=True only when it is not on record yet', () => {
    const first = machineMigrationDecision(machine({ authoritativeAPI: 'Migrating' }));
    expect(first).to.include({ kind: 'paused' }).and.to.have.nested.property('condition.status', 'True');
    const recorded = { ...(first as { condition: Condition }).condition, lastTransitionTime: '2026-01-01T00:00:00Z' };
    expect(machineMigrationDecision(machine({ authoritativeAPI: 'Migrating', conditions: [recorded] }))).to.deep.equal({
      kind: 'paused',
      condition: undefined,
    });
    expect(
      machineMigrationDecision(machine({ authoritativeAPI: 'ClusterAPI', conditions: [recorded] })),
      'another message',
    ).to.have.nested.property('condition.status', 'True');
  });

  it('carries on under MachineAPI, asking for Paused=False only when it changed', () => {
    const first = machineMigrationDecision(machine({ authoritativeAPI: 'MachineAPI' }));
    expect(first).to.include({ kind: 'active' }).and.to.have.nested.property('condition.status', 'False');
    const recorded = { ...(first as { condition: Condition }).condition, lastTransitionTime: '2026-01-01T00:00:00Z' };
    expect(machineMigrationDecision(machine({ authoritativeAPI: 'MachineAPI', conditions: [recorded] }))).to.deep.equal(
      { kind: 'active', condition: undefined },
    );
  });

  it('stops without writing on a value it does not know', () => {
    expect(machineMigrationDecision(machine({ authoritativeAPI: 'Elsewhere' as never }))).to.deep.equal({
      kind: 'unknown',
      authoritativeAPI: 'Elsewhere',
    });
  });
});
