// The operator collector metrics: counts and per-object gauges for Machines and MachineSets, computed from the
// informer caches when Prometheus scrapes, never by listing the API.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/metrics/metrics.go
import { Gauge, type Registry } from 'prom-client';
import { MACHINE_API_GROUP_VERSION, type Machine, type MachineSet } from '../apis/machine-types.js';
import { Machines, MachineSets } from '../client/resources.js';
import type { ControllerManager, Informer } from '../runtime/types.js';

const creationSeconds = (ts: string | undefined): number => {
  const ms = ts ? Date.parse(ts) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

export interface MachineCollectorSources {
  machines: Informer<Machine>;
  machineSets: Informer<MachineSet>;
  /** Restrict to one namespace (the manager's), all when unset. */
  namespace?: string;
}

/** Registers the collector gauges on `registry`; their values are read from the caches at scrape time. */
export function registerMachineCollector(registry: Registry, src: MachineCollectorSources): void {
  const listOpts = src.namespace ? { namespace: src.namespace } : undefined;
  // A cache that has not synced yet is reported as a failed collection, like a failed List in the reference.
  const machineItems = () => (src.machines.hasSynced() ? src.machines.list(listOpts) : undefined);
  const machineSetItems = () => (src.machineSets.hasSynced() ? src.machineSets.list(listOpts) : undefined);

  new Gauge({
    name: 'mapi_mao_collector_up',
    help: 'Machine API Operator metrics are being collected and reported successfully',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.set({ kind: 'mapi_machine_items' }, src.machines.hasSynced() ? 1 : 0);
      this.set({ kind: 'mapi_machineset_items' }, src.machineSets.hasSynced() ? 1 : 0);
    },
  });

  new Gauge({
    name: 'mapi_machine_items',
    help: 'Count of machine objects currently at the apiserver',
    registers: [registry],
    collect() {
      this.reset();
      const list = machineItems();
      if (list) this.set(list.length);
    },
  });
  new Gauge({
    name: 'mapi_machineset_items',
    help: 'Count of machinesets at the apiserver',
    registers: [registry],
    collect() {
      this.reset();
      const list = machineSetItems();
      if (list) this.set(list.length);
    },
  });
  new Gauge({
    name: 'mapi_machine_created_timestamp_seconds',
    help: 'Timestamp of the mapi managed Machine creation time',
    labelNames: ['name', 'namespace', 'spec_provider_id', 'node', 'api_version', 'phase'],
    registers: [registry],
    collect() {
      this.reset();
      for (const m of machineItems() ?? []) {
        const phase = m.status?.phase;
        if (!phase) continue;
        this.set(
          {
            name: m.metadata.name ?? '',
            namespace: m.metadata.namespace ?? '',
            spec_provider_id: m.spec?.providerID ?? '',
            node: m.status?.nodeRef?.name ?? '',
            api_version: m.apiVersion ?? MACHINE_API_GROUP_VERSION,
            phase,
          },
          creationSeconds(m.metadata.creationTimestamp),
        );
      }
    },
  });
  new Gauge({
    name: 'mapi_machineset_created_timestamp_seconds',
    help: 'Timestamp of the mapi managed Machineset creation time',
    labelNames: ['name', 'namespace', 'api_version'],
    registers: [registry],
    collect() {
      this.reset();
      for (const ms of machineSetItems() ?? []) {
        this.set(
          {
            name: ms.metadata.name ?? '',
            namespace: ms.metadata.namespace ?? '',
            api_version: ms.apiVersion ?? MACHINE_API_GROUP_VERSION,
          },
          creationSeconds(ms.metadata.creationTimestamp),
        );
      }
    },
  });
  const perMachineSet = (name: string, help: string, value: (ms: MachineSet) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['name', 'namespace'],
      registers: [registry],
      collect() {
        this.reset();
        for (const ms of machineSetItems() ?? []) {
          this.set({ name: ms.metadata.name ?? '', namespace: ms.metadata.namespace ?? '' }, value(ms) ?? 0);
        }
      },
    });
  perMachineSet(
    'mapi_machine_set_status_replicas',
    "Information of the mapi managed Machineset's status for replicas",
    (ms) => ms.status?.replicas,
  );
  perMachineSet(
    'mapi_machine_set_status_replicas_ready',
    "Information of the mapi managed Machineset's status for ready replicas",
    (ms) => ms.status?.readyReplicas,
  );
  perMachineSet(
    'mapi_machine_set_status_replicas_available',
    "Information of the mapi managed Machineset's status for available replicas",
    (ms) => ms.status?.availableReplicas,
  );
}

/** Registers the collector on the manager's registry over its shared Machine and MachineSet informers. */
export function addMachineCollector(mgr: ControllerManager): void {
  registerMachineCollector(mgr.metrics, {
    machines: mgr.informer(Machines),
    machineSets: mgr.informer(MachineSets),
    namespace: mgr.namespace,
  });
}
