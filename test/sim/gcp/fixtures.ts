// Shared set-up for the GCE emulator tests: real @google-cloud/compute clients pointed at the emulator, and
// insert bodies shaped like the ones the GCP provider sends.
import { randomUUID } from 'node:crypto';
import {
  ImageFamilyViewsClient,
  ImagesClient,
  InstanceGroupsClient,
  InstancesClient,
  MachineTypesClient,
  ProjectsClient,
  RegionBackendServicesClient,
  RegionOperationsClient,
  RegionsClient,
  TargetPoolsClient,
  ZoneOperationsClient,
  ZonesClient,
  type protos,
} from '@google-cloud/compute';
import { PassThroughClient, type AuthClient } from 'google-auth-library';
import type { GceEmulator } from '../../../sim/gcp/index.js';

export type IInstance = protos.google.cloud.compute.v1.IInstance;
export type IOperation = protos.google.cloud.compute.v1.IOperation;

export const PROJECT = 'test-project';
export const ZONE = 'us-central1-a';
export const REGION = 'us-central1';

const CLIENTS = {
  instances: InstancesClient,
  zoneOps: ZoneOperationsClient,
  regionOps: RegionOperationsClient,
  machineTypes: MachineTypesClient,
  images: ImagesClient,
  imageFamilyViews: ImageFamilyViewsClient,
  targetPools: TargetPoolsClient,
  instanceGroups: InstanceGroupsClient,
  backendServices: RegionBackendServicesClient,
  regions: RegionsClient,
  zones: ZonesClient,
  projects: ProjectsClient,
};
export type Clients = { [K in keyof typeof CLIENTS]: InstanceType<(typeof CLIENTS)[K]> } & { close(): Promise<void> };

/** Clients are made on first use: each costs a few hundred ms to set up. */
/** Compute clients for the emulator; `authClient` signs their calls (default: none, for an emulator that checks none). */
export function clientsFor(emu: GceEmulator, authClient: AuthClient = new PassThroughClient()): Clients {
  const opts = { ...emu.clientOptions(), authClient };
  const made = new Map<string, { close(): Promise<void> }>();
  const out = {
    close: async () => {
      await Promise.all([...made.values()].map((x) => x.close()));
    },
  } as Clients;
  for (const [key, Ctor] of Object.entries(CLIENTS)) {
    Object.defineProperty(out, key, {
      get: () => {
        let c = made.get(key);
        if (!c) {
          c = new Ctor(opts);
          made.set(key, c);
        }
        return c;
      },
    });
  }
  return out;
}

export async function closeClients(c: Clients): Promise<void> {
  await c.close();
}

export const rid = (): string => randomUUID();

/** An instance body as the GCP provider builds it, with overridable parts. */
export function instanceBody(name: string, over: Partial<IInstance> = {}, zone = ZONE): IInstance {
  return {
    name,
    machineType: `zones/${zone}/machineTypes/e2-standard-4`,
    canIpForward: false,
    deletionProtection: false,
    labels: { 'kubernetes-io-cluster-test-cluster': 'owned' },
    tags: { items: ['test-cluster-worker'] },
    scheduling: { onHostMaintenance: 'Migrate' },
    shieldedInstanceConfig: { enableSecureBoot: false, enableVtpm: true, enableIntegrityMonitoring: true },
    disks: [
      {
        autoDelete: true,
        boot: true,
        initializeParams: {
          diskSizeGb: '128',
          diskType: `zones/${zone}/diskTypes/pd-ssd`,
          sourceImage:
            'https://compute.googleapis.com/compute/v1/projects/rhcos-cloud/global/images/rhcos-9-6-20251023-0-gcp-x86-64',
          labels: {},
        },
      },
    ],
    networkInterfaces: [
      {
        network: `projects/${PROJECT}/global/networks/test-cluster-network`,
        subnetwork: `projects/${PROJECT}/regions/${REGION}/subnetworks/test-cluster-worker-subnet`,
        accessConfigs: [],
      },
    ],
    serviceAccounts: [
      {
        email: 'worker@test-project.iam.gserviceaccount.com',
        scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      },
    ],
    metadata: { items: [{ key: 'user-data', value: '{"ignition":{"version":"3.2.0"}}' }] },
    ...over,
  };
}

export async function insert(
  c: Clients,
  name: string,
  over: Partial<IInstance> = {},
  requestId = rid(),
  zone = ZONE,
): Promise<IOperation> {
  const [lro] = await c.instances.insert({
    project: PROJECT,
    zone,
    requestId,
    instanceResource: instanceBody(name, over, zone),
  });
  return lro.latestResponse as IOperation;
}

/**
 * Puts copies of the emulator's instance `of` under `count` more names, `${prefix}1`... (the original is
 * `${prefix}0`), straight into its world, as if made by an earlier run: many instances without an insert each.
 */
export function addCopies(emu: GceEmulator, prefix: string, count: number): void {
  const first = emu.world.instances.find((i) => i.name === `${prefix}0`);
  if (!first) throw new Error(`no instance ${prefix}0 to copy`);
  const seq = Math.max(...emu.world.instances.map((i) => i.seq));
  for (let n = 1; n <= count; n++) {
    const name = `${prefix}${n}`;
    const resource = { ...structuredClone(first.resource), name, id: String(9_000_000 + n) };
    emu.world.instances.push({ ...structuredClone(first), name, resource, seq: seq + n });
  }
}

/** Polls zoneOperations.wait until the operation is DONE (the wait itself returns early after its limit). */
export async function waitDone(c: Clients, op: IOperation, zone = ZONE): Promise<IOperation> {
  let cur = op;
  for (let i = 0; i < 50 && cur.status !== 'DONE'; i++)
    [cur] = await c.zoneOps.wait({ project: PROJECT, zone, operation: cur.name ?? '' });
  return cur;
}

/** The error a call rejects with (fails the test when it resolves). */
export async function errorOf(
  p: Promise<unknown>,
): Promise<{ code?: number; httpStatusCode?: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: number; httpStatusCode?: number; message: string };
  }
  throw new Error('expected the call to fail');
}

/** No gax retries, so an injected 503 reaches the test as it was sent. */
export const NO_RETRY = { retry: { retryCodes: [] as number[] } };

/** Polls (bounded, on real time) until `cond` holds: for a request to reach the server before a FakeClock step. */
export async function until(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
