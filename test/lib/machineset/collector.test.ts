import { expect } from 'chai';
import { Registry } from 'prom-client';
import type { Machine, MachineSet } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { Machines, MachineSets, type Resource } from '../../../lib/client/resources.js';
import { registerMachineCollector } from '../../../lib/machineset/collector.js';
import type { Informer } from '../../../lib/runtime/types.js';

/** A cache with fixed contents: enough for a collector that only lists. */
class ListOnlyInformer<T extends KubeObject> implements Informer<T> {
  synced = true;
  constructor(
    readonly resource: Resource<T>,
    public items: T[],
  ) {}
  on() {
    return () => undefined;
  }
  get() {
    return undefined;
  }
  list(opts?: { namespace?: string }) {
    return this.items.filter((o) => opts?.namespace === undefined || o.metadata.namespace === opts.namespace);
  }
  addIndex() {}
  byIndex() {
    return [];
  }
  hasSynced() {
    return this.synced;
  }
  async waitForSync() {}
}

const created = '2026-01-02T03:04:05Z';
const createdSeconds = Date.parse(created) / 1000;

describe('operator collector metrics', () => {
  function setup(namespace?: string) {
    const registry = new Registry();
    const machines = new ListOnlyInformer<Machine>(Machines, [
      {
        apiVersion: 'machine.openshift.io/v1beta1',
        metadata: { name: 'm1', namespace: 'a', creationTimestamp: created },
        spec: { providerID: 'aws:///us-east-1a/i-1' },
        status: { phase: 'Running', nodeRef: { name: 'n1' } },
      },
      { metadata: { name: 'm2', namespace: 'a', creationTimestamp: created }, status: {} },
      { metadata: { name: 'm3', namespace: 'b', creationTimestamp: created }, status: { phase: 'Provisioning' } },
    ]);
    const machineSets = new ListOnlyInformer<MachineSet>(MachineSets, [
      {
        metadata: { name: 's1', namespace: 'a', creationTimestamp: created },
        spec: { selector: {} },
        status: { replicas: 3, readyReplicas: 2, availableReplicas: 1 },
      },
    ]);
    registerMachineCollector(registry, { machines, machineSets, namespace });
    return { registry, machines, machineSets };
  }

  async function values(registry: Registry, name: string) {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values ?? []).map((v) => ({ labels: v.labels, value: v.value }));
  }

  it('counts machines and machinesets from the caches', async () => {
    const { registry } = setup();
    expect(await values(registry, 'mapi_machine_items')).to.deep.equal([{ labels: {}, value: 3 }]);
    expect(await values(registry, 'mapi_machineset_items')).to.deep.equal([{ labels: {}, value: 1 }]);
    expect(await values(registry, 'mapi_mao_collector_up')).to.deep.equal([
      { labels: { kind: 'mapi_machine_items' }, value: 1 },
      { labels: { kind: 'mapi_machineset_items' }, value: 1 },
    ]);
  });

  it('reports machine creation times only for machines with a phase, with the reference labels', async () => {
    const { registry } = setup();
    expect(await values(registry, 'mapi_machine_created_timestamp_seconds')).to.deep.equal([
      {
        labels: {
          name: 'm1',
          namespace: 'a',
          spec_provider_id: 'aws:///us-east-1a/i-1',
          node: 'n1',
          api_version: 'machine.openshift.io/v1beta1',
          phase: 'Running',
        },
        value: createdSeconds,
      },
      {
        labels: {
          name: 'm3',
          namespace: 'b',
          spec_provider_id: '',
          node: '',
          api_version: 'machine.openshift.io/v1beta1',
          phase: 'Provisioning',
        },
        value: createdSeconds,
      },
    ]);
  });

  it('reports machineset creation time and status replicas', async () => {
    const { registry } = setup();
    expect(await values(registry, 'mapi_machineset_created_timestamp_seconds')).to.deep.equal([
      { labels: { name: 's1', namespace: 'a', api_version: 'machine.openshift.io/v1beta1' }, value: createdSeconds },
    ]);
    expect(await values(registry, 'mapi_machine_set_status_replicas')).to.deep.equal([
      { labels: { name: 's1', namespace: 'a' }, value: 3 },
    ]);
    expect(await values(registry, 'mapi_machine_set_status_replicas_ready')).to.deep.equal([
      { labels: { name: 's1', namespace: 'a' }, value: 2 },
    ]);
    expect(await values(registry, 'mapi_machine_set_status_replicas_available')).to.deep.equal([
      { labels: { name: 's1', namespace: 'a' }, value: 1 },
    ]);
  });

  it('follows the caches between scrapes: removed objects disappear', async () => {
    const { registry, machines } = setup();
    machines.items = machines.items.slice(0, 1);
    expect(await values(registry, 'mapi_machine_items')).to.deep.equal([{ labels: {}, value: 1 }]);
    expect(await values(registry, 'mapi_machine_created_timestamp_seconds')).to.have.length(1);
  });

  it('restricts to the manager namespace when there is one', async () => {
    const { registry } = setup('b');
    expect(await values(registry, 'mapi_machine_items')).to.deep.equal([{ labels: {}, value: 1 }]);
    expect(await values(registry, 'mapi_machineset_items')).to.deep.equal([{ labels: {}, value: 0 }]);
  });

  it('reports collector_up 0 and no per-object series while a cache has not synced', async () => {
    const { registry, machineSets } = setup();
    machineSets.synced = false;
    expect(await values(registry, 'mapi_mao_collector_up')).to.deep.include({
      labels: { kind: 'mapi_machineset_items' },
      value: 0,
    });
    expect(await values(registry, 'mapi_machineset_created_timestamp_seconds')).to.deep.equal([]);
    expect(await values(registry, 'mapi_machine_set_status_replicas')).to.deep.equal([]);
  });
});
