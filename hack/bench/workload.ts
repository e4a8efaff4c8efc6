// The objects the benchmark and chaos runs create, and the read-only probes they poll from outside.
import { isNotFound, Machines, MachineSets, type KubeClient, type Machine, type MachineSet } from '../../lib/index.js';
import type { Ec2Emulator } from '../../providers/aws/emulator/index.js';
import { BENCH_NAMESPACE, CLUSTER_ID } from './environment.js';

export const MACHINESET_LABEL = 'machine.openshift.io/cluster-api-machineset';
export { MACHINE_UID_TAG as MACHINE_UID_TAG_KEY } from '../../providers/aws/index.js';
import { MACHINE_UID_TAG as MACHINE_UID_TAG_KEY } from '../../providers/aws/index.js';

/** The providerSpec the installer writes for a worker (aws.md §1.6): subnet and security group by tag filter. */
export function installerProviderSpec(): Record<string, unknown> {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'AWSMachineProviderConfig',
    ami: { id: 'ami-0a1b2c3d4e5f00001' },
    instanceType: 'm6i.xlarge',
    blockDevices: [{ ebs: { encrypted: true, iops: 0, kmsKey: { arn: '' }, volumeSize: 120, volumeType: 'gp3' } }],
    credentialsSecret: { name: 'aws-cloud-credentials' },
    deviceIndex: 0,
    iamInstanceProfile: { id: `${CLUSTER_ID}-worker-profile` },
    metadataServiceOptions: {},
    placement: { availabilityZone: 'us-east-1a', region: 'us-east-1' },
    securityGroups: [{ filters: [{ name: 'tag:Name', values: [`${CLUSTER_ID}-node`] }] }],
    subnet: { filters: [{ name: 'tag:Name', values: [`${CLUSTER_ID}-subnet-private-us-east-1a`] }] },
    tags: [{ name: `kubernetes.io/cluster/${CLUSTER_ID}`, value: 'owned' }],
    userDataSecret: { name: 'worker-user-data' },
  };
}

export function machineSet(name: string, replicas: number): MachineSet {
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
        spec: { providerSpec: { value: installerProviderSpec() } },
      },
    },
  };
}

export async function machinesOf(client: KubeClient, set: string): Promise<Machine[]> {
  return (await client.list(Machines, { namespace: BENCH_NAMESPACE, labelSelector: `${MACHINESET_LABEL}=${set}` })).items;
}

export async function allMachines(client: KubeClient): Promise<Machine[]> {
  return (await client.list(Machines, { namespace: BENCH_NAMESPACE })).items;
}

export async function scale(client: KubeClient, set: string, replicas: number): Promise<void> {
  await client.patch(MachineSets, { namespace: BENCH_NAMESPACE, name: set }, { type: 'merge', body: { spec: { replicas } } });
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
export function liveInstances(emu: Ec2Emulator) {
  return emu.instances().filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');
}

export function machineUidOf(inst: { tags: Array<{ key: string; value: string }> }): string | undefined {
  return inst.tags.find((t) => t.key === MACHINE_UID_TAG_KEY)?.value;
}

/** Polls until probe returns a value (not undefined/false); throws with the last state after timeoutMs. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, o: { timeoutMs: number; intervalMs: number; describe?: () => string }): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${o.timeoutMs} ms waiting for ${what}${o.describe ? ` (${o.describe()})` : ''}${last ? `: ${(last as Error).message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, o.intervalMs));
  }
}
