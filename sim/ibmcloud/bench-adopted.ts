// IBM Cloud's part of the steady-adopted scenario: one running instance per Machine, created with the prototype the
// actuator builds (named after the Machine, in the spec's VPC, subnet and resource group, which the provider's own
// name resolver looks up), so the provider finds each by name as its own; and what the actuator records from it
// (providerID with the API key's account, placement labels, addresses, provider status).
import { MachineInstanceStateAnnotation, RealClock, type Machine } from '../../lib/index.js';
import {
  addressesOf,
  buildInstancePrototype,
  decodeProviderSpec,
  encodeProviderStatus,
  IbmClientFactory,
  MachineCreatedConditionType,
  machineLabelsFor,
  NameResolver,
  providerIdOf,
  type IbmEndpoints,
} from '../../providers/ibmcloud/index.js';
import { ADOPTED_BOOT_TIMEOUT_MS, mapConcurrently, type AdoptedInstance } from '../kit/bench-cloud.js';

/** The seeding's own client limits: far above the provider's, the emulator meters nothing here. */
const SEEDING_LIMITS = { describe: { qps: 10_000, burst: 10_000 }, mutate: { qps: 10_000, burst: 10_000 } };

export async function launchAdoptedIbm(
  endpoints: IbmEndpoints,
  apiKey: string,
  clusterId: string,
  machines: Machine[],
  specValue: Record<string, unknown>,
): Promise<AdoptedInstance[]> {
  const { spec } = decodeProviderSpec(specValue);
  const clock = new RealClock();
  const clients = await new IbmClientFactory({ clock, endpoints, rateLimits: SEEDING_LIMITS }).get(
    apiKey,
    spec.region,
    'bench seeding',
  );
  const ids = await new NameResolver(clock).resolve(clients, spec);
  const accountId = await clients.accountId();
  const created = await mapConcurrently(machines, 64, (m) =>
    clients.vpc.createInstance(buildInstancePrototype(m.metadata.name ?? '', spec, ids, '')),
  );
  const wanted = new Set(created.map((i) => i.id));
  let running = new Map<string, (typeof created)[number]>();
  for (const deadline = Date.now() + ADOPTED_BOOT_TIMEOUT_MS; ;) {
    const listed = await clients.vpc.listInstances({ vpcId: ids.vpcId });
    running = new Map(listed.filter((i) => wanted.has(i.id) && i.status === 'running').map((i) => [i.id, i]));
    if (running.size === wanted.size) break;
    if (Date.now() > deadline) throw new Error(`${running.size} of ${wanted.size} adopted instances running`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return machines.map((m, n) => {
    const name = m.metadata.name ?? '';
    const i = running.get(created[n]?.id ?? '') as (typeof created)[number];
    return {
      machine: name,
      providerID: providerIdOf(accountId, clusterId, i.id),
      labels: machineLabelsFor(spec),
      annotations: { [MachineInstanceStateAnnotation]: 'running' },
      addresses: addressesOf(name, i),
      providerStatus: encodeProviderStatus({
        instanceId: i.id,
        instanceState: 'running',
        conditions: [
          {
            type: MachineCreatedConditionType,
            status: 'True',
            reason: 'MachineCreationSucceeded',
            message: 'Machine successfully created',
            lastTransitionTime: now,
          },
        ],
      }),
    };
  });
}
