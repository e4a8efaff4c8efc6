// The max-in-flight gate over an informer cache that lags the MHC's own writes: a remediation it has just started
// holds its slot until the cache shows it, and a Machine it marked but did not get to delete goes again at once.
import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { Machine, MachineHealthCheck } from '../../../lib/apis/machine-types.js';
import { Machines, MachineSets } from '../../../lib/client/resources.js';
import { EventOnce } from '../../../lib/healthcheck/event-once.js';
import type { HealthCheckTarget } from '../../../lib/healthcheck/health.js';
import { MaxInFlightGate } from '../../../lib/healthcheck/max-in-flight.js';
import { healthCheckMetrics } from '../../../lib/healthcheck/metrics.js';
import { ListEvents } from '../machine/fixtures.js';
import { MemoryInformer, MemoryKubeClient } from '../machine/memory-kube.js';

const NOW = Date.UTC(2026, 10, 28, 9, 0, 0);
const mhc: MachineHealthCheck = {
  metadata: { name: 'mhc', namespace: 'ns', annotations: { 'machine.openshift.io/max-in-flight': '1' } },
  spec: { selector: {} },
};

async function setup(annotations: Record<string, Record<string, string>> = {}) {
  const client = new MemoryKubeClient();
  const machines: Machine[] = [];
  for (const name of ['a', 'b', 'c'])
    machines.push(
      await client.create(Machines, {
        metadata: {
          name,
          namespace: 'ns',
          creationTimestamp: new Date(NOW - 60 * 60_000).toISOString(),
          annotations: annotations[name],
          ownerReferences: [{ apiVersion: 'v1', kind: 'MachineSet', name: 'set', uid: 'set-uid', controller: true }],
        },
      }),
    );
  const gate = new MaxInFlightGate(
    new MemoryInformer(client, Machines),
    new MemoryInformer(client, MachineSets),
    new ListEvents(),
    healthCheckMetrics(new Registry()),
    new EventOnce(),
  );
  const targets: HealthCheckTarget[] = machines.map((machine) => ({ machine }));
  const admit = () =>
    gate.admit({
      mhc,
      key: 'ns/mhc',
      targets,
      due: targets,
      hasRequest: () => false,
      nodeStartupTimeoutMs: 10 * 60_000,
      nowMs: NOW,
      conditions: [],
      live: new Set(),
    });
  return { gate, admit, targets };
}

describe('max-in-flight gate', () => {
  it('counts a remediation it started that the cache does not show yet', async () => {
    const { gate, admit } = await setup();
    const first = admit();
    expect(first.now).to.have.length(1);
    gate.started('ns/mhc', first.now[0]!.machine, NOW);
    // The cache still shows every Machine healthy-looking and not deleting.
    const second = admit();
    expect(second.now).to.deep.equal([]);
    expect(second.held).to.have.length(3);
  });

  it('finishes at once a remediation begun by marking a Machine, and holds the others', async () => {
    const { admit } = await setup({ b: { 'machine.openshift.io/remediated-by': 'mhc' } });
    const r = admit();
    expect(r.now.map((t) => t.machine.metadata.name)).to.deep.equal(['b']);
    expect(r.held.map((t) => t.machine.metadata.name).sort()).to.deep.equal(['a', 'c']);
  });

  it('gives no slot to a Machine remediation would skip (no controller owner), so it holds no one back', async () => {
    const { gate, targets } = await setup();
    const r = gate.admit({
      mhc,
      key: 'ns/mhc',
      targets,
      due: targets,
      hasRequest: () => false,
      remediable: (t) => t.machine.metadata.name !== 'a',
      nodeStartupTimeoutMs: 10 * 60_000,
      nowMs: NOW,
      conditions: [],
      live: new Set(),
    });
    expect(r.now).to.have.length(1);
    expect([...r.now, ...r.held].map((t) => t.machine.metadata.name).sort()).to.deep.equal(['b', 'c']);
  });
});
