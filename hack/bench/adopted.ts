// The world of steady-N (the adopted steady state), made before any controller starts: a MachineSet of n Machines whose
// instances run and whose Nodes are Ready and linked, as an earlier run of the controllers would have left them
// (so the binaries start into a cluster that needs nothing). Written in bulk by the driver: the Machines and the
// MachineSet directly in the control plane, the instances through the cloud's API (the cloud's bench part
// launches them as its provider does), the Nodes by the kubelet simulator, then what the provider and NodeLink
// would have written onto them.
import {
  Machines,
  MachineSets,
  Nodes,
  type KubeClient,
  type Machine,
  type MachineSet,
  type Node,
} from '../../lib/index.js';
import { MachineFinalizer, MachineTemplateHashLabel, NodeMachineAnnotation } from '../../lib/apis/constants.js';
import { templateHash } from '../../lib/machineset/template-hash.js';
import { mapConcurrently, type AdoptedInstance } from '../../sim/kit/bench-cloud.js';
import { BENCH_NAMESPACE, type BenchEnvironment } from './environment.js';
import { machineSet } from './workload.js';

/** Requests in flight at once while seeding (the driver's client allows 1,000/s). */
const SEED_CONCURRENCY = 64;

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Machine `i` of the set, as the MachineSet controller creates it (owned by the set, its template and its hash). */
export function adoptedMachine(set: MachineSet, i: number): Machine {
  const name = set.metadata.name ?? '';
  const template = set.spec?.template;
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name: `${name}-${i.toString(36).padStart(5, '0')}`,
      namespace: set.metadata.namespace,
      labels: { ...template?.metadata?.labels, [MachineTemplateHashLabel]: templateHash(set) },
      finalizers: [MachineFinalizer],
      ownerReferences: [
        {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'MachineSet',
          name,
          uid: set.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(template?.spec ?? {}),
  };
}

/** The provider's record of its instance on the Machine's metadata and spec (the merge patch that writes it). */
export function adoptedSpecPatch(inst: AdoptedInstance): Record<string, unknown> {
  return {
    metadata: { labels: inst.labels, annotations: inst.annotations },
    spec: { providerID: inst.providerID },
  };
}

/**
 * The Machine's status once Running and linked: the provider's record, NodeLink's reference to the Node, and the
 * machine controller's conditions for a running instance.
 */
export function adoptedStatus(inst: AdoptedInstance, node: Node, nowMs: number): Machine['status'] {
  const at = isoSeconds(nowMs);
  return {
    phase: 'Running',
    providerStatus: inst.providerStatus,
    addresses: inst.addresses,
    nodeRef: { kind: 'Node', name: node.metadata.name ?? '', uid: node.metadata.uid },
    lastUpdated: at,
    conditions: ['Drainable', 'InstanceExists', 'Terminable'].map((type) => ({
      type,
      status: 'True',
      lastTransitionTime: at,
    })),
  };
}

/** The MachineSet's status with every replica there, Ready, available and made from the current template. */
export function adoptedSetStatus(set: MachineSet, n: number, nowMs: number): MachineSet['status'] {
  const selector = Object.entries(set.spec?.selector?.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return {
    replicas: n,
    fullyLabeledReplicas: n,
    readyReplicas: n,
    availableReplicas: n,
    observedGeneration: set.metadata.generation ?? 1,
    labelSelector: selector,
    conditions: [
      {
        type: 'UpToDate',
        status: 'True',
        reason: 'AsExpected',
        message: `${n} Machine${n === 1 ? '' : 's'} match the template`,
        lastTransitionTime: isoSeconds(nowMs),
      },
    ],
  };
}

async function waitForNodes(client: KubeClient, byProviderID: Set<string>, log: (l: string) => void) {
  for (let tries = 0; ; tries++) {
    const ready = new Map<string, Node>();
    for (const node of (await client.list(Nodes)).items) {
      const id = node.spec?.providerID ?? '';
      const isReady = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (byProviderID.has(id) && isReady) ready.set(id, node);
    }
    if (ready.size === byProviderID.size) return ready;
    if (tries % 10 === 0) log(`seeding: ${ready.size}/${byProviderID.size} Nodes Ready`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** n Machines over k MachineSets, as evenly as they go (the first sets take the remainder). */
export function shares(n: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));
}

/** One set of the seeding: the MachineSet (its status written), its Machines created and their instances running. */
async function seedSet(env: BenchEnvironment, name: string, n: number, spec: Record<string, unknown>) {
  const { client, provider } = env;
  const set = await client.create(MachineSets, machineSet(name, n, provider, spec));
  await client.patch(
    MachineSets,
    { namespace: BENCH_NAMESPACE, name },
    { type: 'merge', body: { status: adoptedSetStatus(set, n, Date.now()) } },
    { subresource: 'status' },
  );
  const machines = await mapConcurrently(
    Array.from({ length: n }, (_, i) => i),
    SEED_CONCURRENCY,
    (i) => client.create(Machines, adoptedMachine(set, i)),
  );
  return env.emulator.launchAdopted(machines, spec);
}

/**
 * Makes n adopted Machines in MachineSets named after `name`, one per zone the cloud's bench part lists (a zone's
 * subnet may not hold them all); resolves once every Machine is Running and linked to its Node.
 */
export async function seedAdopted(env: BenchEnvironment, name: string, n: number, log: (l: string) => void) {
  const { client, provider } = env;
  const started = performance.now();
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  const specs = provider.zonalProviderSpecs?.() ?? [provider.providerSpec()];
  const sizes = shares(n, specs.length);
  const sets = specs.map((_, z) => (specs.length === 1 ? name : `${name}-${z}`));
  // The kubelets rest while thousands of instances appear one by one (each change would have them look at every
  // instance again), and register every Node in one pass once all run, as kubelets of booted machines would.
  await env.kubelet.stop();
  let instances: AdoptedInstance[];
  try {
    // The sets side by side: each waits out its instances' boot.
    instances = (
      await Promise.all(
        specs.map(async (spec, z): Promise<AdoptedInstance[]> => {
          const size = sizes[z] ?? 0;
          if (size === 0) return [];
          log(`seeding: ${sets[z]}: ${size} Machines, launching their instances`);
          return seedSet(env, sets[z] ?? name, size, spec);
        }),
      )
    ).flat();
  } finally {
    await env.kubelet.start();
  }
  log(`seeding: ${n} instances running and Machines created at ${at()}, recording the instances, then the Nodes`);
  await mapConcurrently(instances, SEED_CONCURRENCY, (inst) =>
    client.patch(
      Machines,
      { namespace: BENCH_NAMESPACE, name: inst.machine },
      { type: 'merge', body: adoptedSpecPatch(inst) },
    ),
  );
  const nodes = await waitForNodes(client, new Set(instances.map((i) => i.providerID)), log);
  log(`seeding: ${n} Nodes Ready at ${at()}, linking them`);
  const now = Date.now();
  await mapConcurrently(instances, SEED_CONCURRENCY, async (inst) => {
    const node = nodes.get(inst.providerID) as Node;
    await client.patch(
      Nodes,
      { name: node.metadata.name ?? '' },
      {
        type: 'merge',
        body: { metadata: { annotations: { [NodeMachineAnnotation]: `${BENCH_NAMESPACE}/${inst.machine}` } } },
      },
    );
    await client.patch(
      Machines,
      { namespace: BENCH_NAMESPACE, name: inst.machine },
      { type: 'merge', body: { status: adoptedStatus(inst, node, now) } },
      { subresource: 'status' },
    );
  });
  log(`seeding: ${n} adopted Machines in ${at()}`);
  return { sets: sets.filter((_, z) => (sizes[z] ?? 0) > 0), seedSeconds: (performance.now() - started) / 1000 };
}
