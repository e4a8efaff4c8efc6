import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import type { Machine, MachineHealthCheck } from '../../../lib/apis/machine-types.js';
import {
  DEFAULT_NODE_STARTUP_TIMEOUT_MS,
  InvalidHealthCheckError,
  classifyTargets,
  detectedUnhealthyNote,
  healthCheckSettings,
  needsRemediation,
  targetString,
  unhealthyCount,
  type HealthCheckSettings,
} from '../../../lib/healthcheck/health.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();

function machine(name: string, status: Machine['status'] = {}, meta: Partial<Machine['metadata']> = {}): Machine {
  return { metadata: { name, uid: `uid-${name}`, ...meta }, status };
}
function node(
  name: string,
  conditions: Array<{ type: string; status: 'True' | 'False' | 'Unknown'; ago: number }> = [],
): Node {
  return {
    metadata: { name, uid: `uid-${name}` },
    status: { conditions: conditions.map((c) => ({ type: c.type, status: c.status, lastTransitionTime: iso(c.ago) })) },
  };
}

const settings: HealthCheckSettings = {
  nodeStartupTimeoutMs: 10 * 60_000,
  unhealthyConditions: [
    { type: 'Ready', status: 'False', timeoutMs: 300_000 },
    { type: 'Ready', status: 'Unknown', timeoutMs: 300_000 },
  ],
};

describe('MachineHealthCheck health', () => {
  describe('healthCheckSettings', () => {
    it('parses Go durations and defaults nodeStartupTimeout to 10 minutes', () => {
      const mhc: MachineHealthCheck = {
        metadata: {},
        spec: { selector: {}, unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '1m30s' }] },
      };
      expect(healthCheckSettings(mhc)).to.deep.equal({
        unhealthyConditions: [{ type: 'Ready', status: 'False', timeoutMs: 90_000 }],
        nodeStartupTimeoutMs: DEFAULT_NODE_STARTUP_TIMEOUT_MS,
      });
      expect(
        healthCheckSettings({ ...mhc, spec: { ...mhc.spec!, nodeStartupTimeout: '0' } }).nodeStartupTimeoutMs,
      ).to.equal(0);
    });

    it('names the field of an invalid duration', () => {
      const mhc: MachineHealthCheck = {
        metadata: {},
        spec: { selector: {}, unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '5 minutes' }] },
      };
      expect(() => healthCheckSettings(mhc)).to.throw(
        InvalidHealthCheckError,
        /^spec\.unhealthyConditions\[0\]\.timeout: time: /,
      );
    });
  });

  describe('needsRemediation', () => {
    it('remediates a Failed machine whatever its node', () => {
      expect(
        needsRemediation({ machine: machine('m', { phase: 'Failed' }), node: node('n') }, settings, NOW)
          .needsRemediation,
      ).to.equal(true);
    });

    it('waits nodeStartupTimeout from status.lastUpdated for a node, calling the machine starting meanwhile, then remediates', () => {
      const young = needsRemediation({ machine: machine('m', { lastUpdated: iso(60_000) }) }, settings, NOW);
      expect(young).to.include({ needsRemediation: false, starting: true, nextCheckMs: 10 * 60_000 - 60_000 + 1000 });
      const old = needsRemediation({ machine: machine('m', { lastUpdated: iso(10 * 60_000 + 1) }) }, settings, NOW);
      expect(old).to.include({ needsRemediation: true, starting: false });
      // Exactly at the timeout is not yet "before now".
      expect(
        needsRemediation({ machine: machine('m', { lastUpdated: iso(10 * 60_000) }) }, settings, NOW).needsRemediation,
      ).to.equal(false);
    });

    it('waits the full startup timeout when the status was never updated', () => {
      expect(needsRemediation({ machine: machine('m') }, settings, NOW)).to.include({
        needsRemediation: false,
        starting: true,
        nextCheckMs: 10 * 60_000,
      });
    });

    it('never remediates a node-less machine when the startup check is disabled', () => {
      expect(
        needsRemediation(
          { machine: machine('m', { lastUpdated: iso(10 * 3600_000) }) },
          { ...settings, nodeStartupTimeoutMs: 0 },
          NOW,
        ),
      ).to.include({
        needsRemediation: false,
        nextCheckMs: 0,
      });
    });

    it('remediates a machine whose node no longer exists', () => {
      expect(
        needsRemediation({ machine: machine('m'), node: { metadata: { name: 'gone' } } }, settings, NOW)
          .needsRemediation,
      ).to.equal(true);
    });

    it('remediates once an unhealthy condition has lasted longer than its timeout', () => {
      const t = { machine: machine('m'), node: node('n', [{ type: 'Ready', status: 'Unknown', ago: 300_001 }]) };
      expect(needsRemediation(t, settings, NOW).needsRemediation).to.equal(true);
    });

    it('asks to look again when an unhealthy condition is within its timeout', () => {
      const t = { machine: machine('m'), node: node('n', [{ type: 'Ready', status: 'False', ago: 100_000 }]) };
      expect(needsRemediation(t, settings, NOW)).to.include({
        needsRemediation: false,
        starting: false,
        nextCheckMs: 300_000 - 100_000 + 1000,
      });
    });

    it('caps the next check at one hour', () => {
      const long = { ...settings, unhealthyConditions: [{ type: 'Ready', status: 'False', timeoutMs: 5 * 3600_000 }] };
      const t = { machine: machine('m'), node: node('n', [{ type: 'Ready', status: 'False', ago: 0 }]) };
      expect(needsRemediation(t, long, NOW).nextCheckMs).to.equal(3600_000);
    });

    it('treats a node without matching conditions as healthy', () => {
      const t = { machine: machine('m'), node: node('n', [{ type: 'Ready', status: 'True', ago: 1 }]) };
      expect(needsRemediation(t, settings, NOW)).to.include({ needsRemediation: false, nextCheckMs: 0 });
    });
  });

  describe('classifyTargets', () => {
    it('counts as healthy only machines with a node, not deleting and not under external remediation', () => {
      const ready = () => node('n', [{ type: 'Ready', status: 'True', ago: 1 }]);
      const c = classifyTargets(
        [
          { machine: machine('ok'), node: ready() },
          { machine: machine('deleting', {}, { deletionTimestamp: iso(0) }), node: ready() },
          {
            machine: machine('ext', {}, { annotations: { 'host.metal3.io/external-remediation': '' } }),
            node: ready(),
          },
          { machine: machine('nonode-nocheck', { lastUpdated: iso(0) }) },
          { machine: machine('failed', { phase: 'Failed' }), node: ready() },
          { machine: machine('booting', { lastUpdated: iso(0) }) },
        ],
        { ...settings, nodeStartupTimeoutMs: 0 },
        NOW,
      );
      expect(c.healthy.map((t) => t.machine.metadata.name)).to.deep.equal(['ok']);
      expect(c.remediate.map((t) => t.machine.metadata.name)).to.deep.equal(['failed']);
      expect(c.other.map((t) => t.machine.metadata.name)).to.deep.equal(['deleting', 'ext']);
      expect(
        c.starting.map((s) => s.target.machine.metadata.name),
        'no node and startup not checked',
      ).to.deep.equal(['nonode-nocheck', 'booting']);
    });

    it('counts machines inside their node startup window neither healthy nor unhealthy', () => {
      const c = classifyTargets(
        [
          { machine: machine('ok'), node: node('n', [{ type: 'Ready', status: 'True', ago: 1 }]) },
          { machine: machine('new-1', { lastUpdated: iso(5_000) }) },
          { machine: machine('new-2') },
          { machine: machine('flaky'), node: node('f', [{ type: 'Ready', status: 'Unknown', ago: 1_000 }]) },
          { machine: machine('stuck', { lastUpdated: iso(11 * 60_000) }) },
        ],
        settings,
        NOW,
      );
      expect(c.starting.map((s) => [s.target.machine.metadata.name, s.nextCheckMs])).to.deep.equal([
        ['new-1', 10 * 60_000 - 5_000 + 1000],
        ['new-2', 10 * 60_000],
      ]);
      expect(c.pending.map((p) => p.target.machine.metadata.name)).to.deep.equal(['flaky']);
      expect(c.remediate.map((t) => t.machine.metadata.name)).to.deep.equal(['stuck']);
      expect(unhealthyCount(c)).to.equal(2);
    });
  });

  it('prints a target as mhcNamespace/mhcName/machine/node, or says the machine has no node', () => {
    const mhc: MachineHealthCheck = { metadata: { name: 'mhc', namespace: 'ns' }, spec: { selector: {} } };
    expect(targetString(mhc, { machine: machine('m'), node: node('n') })).to.equal('ns/mhc/m/n');
    expect(targetString(mhc, { machine: machine('m') })).to.equal('ns/mhc/m (no node)');
  });

  it('names the node in a DetectedUnhealthy note, or says there is none', () => {
    const mhc: MachineHealthCheck = { metadata: { name: 'mhc', namespace: 'ns' }, spec: { selector: {} } };
    expect(detectedUnhealthyNote(mhc, { machine: machine('m'), node: node('n') })).to.equal(
      'Machine ns/mhc/m/n has unhealthy node n',
    );
    expect(detectedUnhealthyNote(mhc, { machine: machine('m') })).to.equal('Machine ns/mhc/m (no node) has no node');
  });
});
