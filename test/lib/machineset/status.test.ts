import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import type { Machine, MachineSet } from '../../../lib/apis/machine-types.js';
import {
  calculateStatus,
  isAvailable,
  machineAvailable,
  minReadyRequeueMs,
  nextAvailableInMs,
  statusNeedsUpdate,
  statusPatch,
} from '../../../lib/machineset/status.js';

const NOW = Date.parse('2026-01-01T01:00:00Z');

function ms(overrides: Partial<MachineSet['spec']> = {}, status?: MachineSet['status'], generation = 3): MachineSet {
  return {
    metadata: { name: 'ms', namespace: 'ns', generation },
    spec: {
      replicas: 3,
      selector: { matchLabels: { set: 'a' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['b', 'a'] }] },
      template: { metadata: { labels: { set: 'a', zone: 'a', extra: 'x' } } },
      ...overrides,
    },
    status,
  };
}

function machine(name: string, labels: Record<string, string>, node?: string): Machine {
  return { metadata: { name, labels }, status: node ? { nodeRef: { name: node } } : {} };
}

function node(name: string, ready: 'True' | 'False' | undefined, since = '2026-01-01T00:00:00Z'): Node {
  return {
    metadata: { name },
    status: { conditions: ready ? [{ type: 'Ready', status: ready, lastTransitionTime: since }] : [] },
  };
}

describe('MachineSet status', () => {
  const nodes = new Map<string, Node>([
    ['n-ready', node('n-ready', 'True')],
    ['n-ready-recent', node('n-ready-recent', 'True', '2026-01-01T00:59:50Z')],
    ['n-notready', node('n-notready', 'False')],
    ['n-nocond', node('n-nocond', undefined)],
  ]);
  const lookup = (n: string) => nodes.get(n);
  const full = { set: 'a', zone: 'a', extra: 'x' };

  it('counts replicas, fully labelled, ready and available machines', () => {
    const machines = [
      machine('a', full, 'n-ready'),
      machine('b', { set: 'a', zone: 'a' }, 'n-ready-recent'),
      machine('c', full, 'n-notready'),
      machine('d', full, 'n-missing'),
      machine('e', full),
      machine('f', full, 'n-nocond'),
    ];
    const s = calculateStatus(ms({ minReadySeconds: 30 }), machines, lookup, NOW);
    expect(s).to.include({ replicas: 6, fullyLabeledReplicas: 5, readyReplicas: 2, availableReplicas: 1 });
  });

  it('counts every ready machine as available when minReadySeconds is 0', () => {
    const s = calculateStatus(ms(), [machine('a', full, 'n-ready'), machine('b', full, 'n-ready-recent')], lookup, NOW);
    expect(s).to.include({ readyReplicas: 2, availableReplicas: 2 });
  });

  it('requires Ready to have held strictly longer than minReadySeconds', () => {
    expect(isAvailable({ lastTransitionTime: '2026-01-01T00:59:30Z' }, 30, NOW)).to.equal(false);
    expect(isAvailable({ lastTransitionTime: '2026-01-01T00:59:29Z' }, 30, NOW)).to.equal(true);
    expect(isAvailable({}, 30, NOW)).to.equal(false);
    expect(isAvailable({}, 0, NOW)).to.equal(true);
  });

  it('renders the selector for the /scale subresource, sorted by key', () => {
    expect(calculateStatus(ms(), [], lookup, NOW).labelSelector).to.equal('set=a,zone in (a,b)');
  });

  it('keeps fields it does not compute', () => {
    const s = calculateStatus(
      ms({}, { authoritativeAPI: 'MachineAPI', conditions: [{ type: 'Paused', status: 'False' }] }),
      [],
      lookup,
      NOW,
    );
    expect(s.authoritativeAPI).to.equal('MachineAPI');
    expect(s.conditions).to.have.length(1);
  });

  describe('statusNeedsUpdate', () => {
    const base = {
      replicas: 1,
      fullyLabeledReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      labelSelector: 'set=a',
      observedGeneration: 3,
    };

    it('skips the write when nothing changed and the generation was observed', () => {
      expect(statusNeedsUpdate(ms({}, base), { ...base })).to.equal(false);
    });

    it('writes when the generation was not observed yet', () => {
      expect(statusNeedsUpdate(ms({}, base, 4), { ...base })).to.equal(true);
    });

    it('writes when only the label selector changed', () => {
      expect(statusNeedsUpdate(ms({}, base), { ...base, labelSelector: 'set=b' })).to.equal(true);
    });

    it('writes when a counter or the error fields changed', () => {
      expect(statusNeedsUpdate(ms({}, base), { ...base, readyReplicas: 0 })).to.equal(true);
      expect(statusNeedsUpdate(ms({}, base), { ...base, errorReason: 'InvalidConfiguration' })).to.equal(true);
      expect(statusNeedsUpdate(ms({}, { ...base, errorMessage: 'x' }), { ...base })).to.equal(true);
    });
  });

  it('patches observedGeneration and clears error fields with null', () => {
    const p = statusPatch(ms({}, { errorReason: 'InvalidConfiguration' }), {
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      labelSelector: 's',
    });
    expect(p).to.deep.equal({
      status: {
        replicas: 2,
        fullyLabeledReplicas: 2,
        readyReplicas: 1,
        availableReplicas: 1,
        labelSelector: 's',
        observedGeneration: 3,
        errorReason: null,
        errorMessage: null,
      },
    });
  });

  it('asks to look again after minReadySeconds only while ready machines are not yet available', () => {
    expect(minReadyRequeueMs(ms({ minReadySeconds: 10 }), { readyReplicas: 3, availableReplicas: 1 })).to.equal(10_000);
    expect(minReadyRequeueMs(ms({ minReadySeconds: 10 }), { readyReplicas: 3, availableReplicas: 3 })).to.equal(
      undefined,
    );
    expect(minReadyRequeueMs(ms({ minReadySeconds: 10 }), { readyReplicas: 2, availableReplicas: 1 })).to.equal(
      undefined,
    );
    expect(minReadyRequeueMs(ms(), { readyReplicas: 3, availableReplicas: 1 })).to.equal(undefined);
  });
});

describe('rollout availability', () => {
  const nodes = new Map<string, Node>([
    ['old', node('old', 'True', '2026-01-01T00:00:00Z')],
    ['fresh', node('fresh', 'True', '2026-01-01T00:59:50Z')],
    ['down', node('down', 'False')],
  ]);
  const nodeOf = (n: string) => nodes.get(n);
  const running = (n: string): Machine => ({
    metadata: { name: n },
    status: { phase: 'Running', nodeRef: { name: n } },
  });

  it('counts a Machine available when Running with a Node Ready for minReadySeconds', () => {
    expect(machineAvailable(running('old'), nodeOf, 30, NOW)).to.equal(true);
    expect(machineAvailable(running('fresh'), nodeOf, 30, NOW), 'ready for 10 s only').to.equal(false);
    expect(machineAvailable(running('fresh'), nodeOf, 0, NOW)).to.equal(true);
    expect(machineAvailable(running('down'), nodeOf, 0, NOW)).to.equal(false);
    const provisioned = { ...running('old'), status: { phase: 'Provisioned', nodeRef: { name: 'old' } } };
    expect(machineAvailable(provisioned, nodeOf, 0, NOW), 'not Running').to.equal(false);
  });

  it('says when the next Ready Machine becomes available, so the rollout takes its next step then', () => {
    expect(nextAvailableInMs([running('old'), running('fresh')], nodeOf, 30, NOW)).to.equal(20_001);
    expect(nextAvailableInMs([running('old'), running('down')], nodeOf, 30, NOW)).to.equal(undefined);
    expect(nextAvailableInMs([running('fresh')], nodeOf, 0, NOW)).to.equal(undefined);
  });
});
