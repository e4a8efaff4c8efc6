import { expect } from 'chai';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { addMachineController } from '../../../lib/machine/controller.js';
import { addNodeLinkController } from '../../../lib/nodelink/controller.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { fakeManager } from './fake-manager.js';

describe('controller wiring', () => {
  it('registers machine-controller and machine-drain-controller, both watching Machines, with the reference rate limits', () => {
    const { mgr, controllers, recorders } = fakeManager();
    addMachineController(mgr, new FakeActuator(), { maxConcurrentReconciles: 7 });
    expect(controllers.map((c) => c.name)).to.deep.equal(['machine-controller', 'machine-drain-controller']);
    const [machine, drain] = controllers;
    expect(machine?.maxConcurrentReconciles).to.equal(7);
    expect(machine?.rateLimiter).to.deep.equal({ baseDelayMs: 5, maxDelayMs: 1_000_000 });
    // Drains run side by side too, with as many workers (the reference has one).
    expect(drain?.maxConcurrentReconciles).to.equal(7);
    expect(drain?.rateLimiter).to.deep.equal({ baseDelayMs: 5_000, maxDelayMs: 1_000_000, qps: 10, burst: 100 });
    for (const c of controllers) {
      expect(c.watches).to.have.length(1);
      expect(c.watches[0]).to.include({ enqueue: 'self' });
      expect(c.watches[0]?.informer.resource.plural).to.equal('machines');
    }
    expect(recorders).to.have.members(['machine-controller', 'machine-drain-controller']);
    expect(mgr.metrics.getSingleMetric('mapi_machine_phase_transition_seconds')).to.not.equal(undefined);
  });

  it('registers nodelink-controller on Nodes (self) and Machines (mapped to their node)', async () => {
    const { mgr, controllers } = fakeManager();
    addNodeLinkController(mgr);
    const [c] = controllers;
    expect(c?.name).to.equal('nodelink-controller');
    expect(c?.watches.map((w) => `${w.informer.resource.plural}:${w.enqueue}`)).to.deep.equal([
      'nodes:self',
      'machines:map',
    ]);
    await mgr.client.create(
      mgr.informer({ group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false }).resource,
      {
        metadata: { name: 'n1' },
        spec: { providerID: 'aws:///us-east-1a/i-1' },
      } as KubeObject,
    );
    const map = c?.watches[1];
    if (map?.enqueue !== 'map') throw new Error('expected a map watch');
    const machine = {
      metadata: { name: 'm', namespace: 'ns' },
      spec: { providerID: 'aws:///i-1' },
      status: { nodeRef: { name: 'old-node' } },
    } as KubeObject;
    expect(map.map(machine)).to.deep.equal([{ name: 'n1' }, { name: 'old-node' }]);
    expect(
      map.map({ ...machine, metadata: { ...machine.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }),
    ).to.deep.equal([]);
  });
});
