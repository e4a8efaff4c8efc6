// The objects the benchmark and chaos runs create, and the read-only probes they poll from outside.
import { isNotFound, Machines, MachineSets, type KubeClient, type Machine, type MachineSet } from '../../lib/index.js';
import { BENCH_NAMESPACE } from './environment.js';
import { awsBench, MACHINE_UID_TAG as MACHINE_UID_TAG_KEY, type BenchCloud, type BenchProvider } from './providers.js';

export const MACHINESET_LABEL = 'machine.openshift.io/cluster-api-machineset';
export { MACHINE_UID_TAG_KEY };

/** The providerSpec the installer writes for an AWS worker: subnet and security group by tag filter. */
export function installerProviderSpec(): Record<string, unknown> {
  return awsBench.providerSpec();
}

export function machineSet(
  name: string,
  replicas: number,
  provider: BenchProvider = awsBench,
  providerSpec: Record<string, unknown> = provider.providerSpec(),
): MachineSet {
  const CLUSTER_ID = provider.clusterId;
  const labels = { 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID, [MACHINESET_LABEL]: name };
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name, namespace: BENCH_NAMESPACE, labels: { 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID } },
    spec: {
      replicas,
      deletePolicy: 'Oldest',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, 'machine.openshift.io/cluster-api-machine-role': 'worker' } },
        spec: { providerSpec: { value: providerSpec } },
      },
    },
  };
}

export async function machinesOf(client: KubeClient, set: string): Promise<Machine[]> {
  return (await client.list(Machines, { namespace: BENCH_NAMESPACE, labelSelector: `${MACHINESET_LABEL}=${set}` }))
    .items;
}

export async function allMachines(client: KubeClient): Promise<Machine[]> {
  return (await client.list(Machines, { namespace: BENCH_NAMESPACE })).items;
}

export async function scale(client: KubeClient, set: string, replicas: number): Promise<void> {
  await client.patch(
    MachineSets,
    { namespace: BENCH_NAMESPACE, name: set },
    { type: 'merge', body: { spec: { replicas } } },
  );
}

export async function getMachineSet(client: KubeClient, name: string): Promise<MachineSet | undefined> {
  try {
    return await client.get(MachineSets, { namespace: BENCH_NAMESPACE, name });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Instances that are not (being) terminated. */
export function liveInstances(emu: BenchCloud) {
  return emu.liveInstances();
}

export function machineUidOf(inst: { tags: Array<{ key: string; value: string }> }): string | undefined {
  return inst.tags.find((t) => t.key === MACHINE_UID_TAG_KEY)?.value;
}
