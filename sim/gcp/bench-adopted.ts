// GCP's part of the steady-adopted scenario: one running instance per Machine, inserted with the Instance the
// actuator builds (named after the Machine, in the spec's zone, with the cluster's labels), so the provider finds
// each by name as its own; and what the actuator records from it (providerID, placement labels, addresses,
// provider status).
import { MachineCreatedCondition, MachineInstanceStateAnnotation, type Machine } from '../../lib/index.js';
import {
  addressesOf,
  buildInstance,
  decodeProviderSpec,
  encodeProviderStatus,
  machineLabelsFor,
  providerIdOf,
  type Instance,
} from '../../providers/gcp/index.js';
import { ADOPTED_BOOT_TIMEOUT_MS, mapConcurrently, type AdoptedInstance } from '../kit/bench-cloud.js';

async function call(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json' } });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Every instance of the zone, page by page. */
async function listZone(zoneUrl: string): Promise<Instance[]> {
  const out: Instance[] = [];
  let token: string | undefined;
  do {
    const page = await call(`${zoneUrl}/instances?maxResults=500${token ? `&pageToken=${token}` : ''}`);
    out.push(...((page.items as Instance[] | undefined) ?? []));
    token = page.nextPageToken as string | undefined;
  } while (token);
  return out;
}

/** `apiRoot`: the emulator's "http://127.0.0.1:<port>/compute/v1/" (the bench emulator asks for no token). */
export async function launchAdoptedGcp(
  apiRoot: string,
  clusterId: string,
  machines: Machine[],
  specValue: Record<string, unknown>,
): Promise<AdoptedInstance[]> {
  const { spec } = decodeProviderSpec(specValue);
  const project = spec.projectID ?? '';
  const zoneUrl = `${apiRoot}projects/${project}/zones/${spec.zone}`;
  await mapConcurrently(machines, 64, async (m) => {
    const op = await call(`${zoneUrl}/instances`, {
      method: 'POST',
      body: JSON.stringify(buildInstance(m, spec, { project, clusterId, userData: '' })),
    });
    // A refused insert (quota, stock-out) is an operation that carries the error; its instance never comes.
    if (op.error) throw new Error(`insert of ${m.metadata.name ?? ''} failed: ${JSON.stringify(op.error)}`);
  });
  const names = new Set(machines.map((m) => m.metadata.name ?? ''));
  let byName = new Map<string, Instance>();
  for (const deadline = Date.now() + ADOPTED_BOOT_TIMEOUT_MS; ;) {
    byName = new Map((await listZone(zoneUrl)).filter((i) => names.has(i.name ?? '')).map((i) => [i.name ?? '', i]));
    if (byName.size === names.size && [...byName.values()].every((i) => i.status === 'RUNNING')) break;
    if (Date.now() > deadline) throw new Error(`${byName.size} of ${names.size} adopted instances in ${spec.zone}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return machines.map((m) => {
    const name = m.metadata.name ?? '';
    const i = byName.get(name) as Instance;
    return {
      machine: name,
      providerID: providerIdOf(project, spec.zone, name),
      labels: machineLabelsFor(spec),
      annotations: { [MachineInstanceStateAnnotation]: 'RUNNING' },
      addresses: addressesOf(i, project, spec.zone),
      providerStatus: encodeProviderStatus({
        instanceId: name,
        instanceState: 'RUNNING',
        conditions: [
          {
            type: MachineCreatedCondition,
            status: 'True',
            reason: 'MachineCreationSucceeded',
            message: 'machine successfully created',
            lastTransitionTime: now,
          },
        ],
      }),
    };
  });
}
