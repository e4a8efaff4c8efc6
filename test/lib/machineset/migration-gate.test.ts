import { expect } from 'chai';
import type { MachineSet } from '../../../lib/apis/machine-types.js';
import { migrationDecision } from '../../../lib/machineset/migration-gate.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function ms(status?: MachineSet['status'], specAuthority?: 'MachineAPI' | 'ClusterAPI'): MachineSet {
  return { metadata: { name: 'ms' }, spec: { selector: {}, authoritativeAPI: specAuthority }, status };
}

describe('MachineSet migration gate', () => {
  it('copies spec.authoritativeAPI to an empty status first (MachineAPI when the spec has none)', () => {
    expect(migrationDecision(ms(undefined, 'ClusterAPI'), NOW)).to.deep.equal({
      kind: 'sync-authority',
      authoritativeAPI: 'ClusterAPI',
    });
    expect(migrationDecision(ms({ authoritativeAPI: '' }), NOW)).to.deep.equal({
      kind: 'sync-authority',
      authoritativeAPI: 'MachineAPI',
    });
  });

  it('pauses for ClusterAPI and Migrating with the reference reason and message', () => {
    const d = migrationDecision(ms({ authoritativeAPI: 'Migrating' }), NOW);
    expect(d.kind).to.equal('paused');
    expect(d.kind === 'paused' && d.conditions).to.deep.equal([
      {
        type: 'Paused',
        status: 'True',
        reason: 'AuthoritativeAPINotMachineAPI',
        message: "The AuthoritativeAPI status is set to 'Migrating'",
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('does not rewrite a Paused condition that is already right', () => {
    const first = migrationDecision(ms({ authoritativeAPI: 'ClusterAPI' }), NOW);
    const conditions = first.kind === 'paused' ? first.conditions : undefined;
    expect(migrationDecision(ms({ authoritativeAPI: 'ClusterAPI', conditions }), NOW + 5000)).to.deep.equal({
      kind: 'paused',
    });
  });

  it('carries on for MachineAPI with Paused=False (Info)', () => {
    const d = migrationDecision(ms({ authoritativeAPI: 'MachineAPI' }), NOW);
    expect(d.kind).to.equal('active');
    expect(d.kind === 'active' && d.conditions[0]).to.deep.include({
      type: 'Paused',
      status: 'False',
      severity: 'Info',
      reason: 'AuthoritativeAPIMachineAPI',
      message: "The AuthoritativeAPI status is set to 'MachineAPI'",
    });
  });

  it('stops on a value it does not know', () => {
    expect(migrationDecision(ms({ authoritativeAPI: 'Other' as 'MachineAPI' }), NOW)).to.deep.equal({
      kind: 'unknown',
      authoritativeAPI: 'Other',
    });
  });
});
