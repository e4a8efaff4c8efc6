// The ComputeApi over @google-cloud/compute (REST transport). Every call first takes a token from the shared
// client-side rate limiter (per project: GCE meters API calls per project), and every call has a deadline and
// honours an AbortSignal, both kept by call-deadline.ts (gax's own deadline kept every reply in the heap).
// Each client from its own module: the package index loads all of Compute's ~100 clients and its static
// protos, about 150 MB of resident memory against some 60 MB for the eight used here.
import { ImageFamilyViewsClient } from '@google-cloud/compute/build/src/v1/image_family_views_client.js';
import { ImagesClient } from '@google-cloud/compute/build/src/v1/images_client.js';
import { InstanceGroupsClient } from '@google-cloud/compute/build/src/v1/instance_groups_client.js';
import { InstancesClient } from '@google-cloud/compute/build/src/v1/instances_client.js';
import { MachineTypesClient } from '@google-cloud/compute/build/src/v1/machine_types_client.js';
import { RegionBackendServicesClient } from '@google-cloud/compute/build/src/v1/region_backend_services_client.js';
import { RegionsClient } from '@google-cloud/compute/build/src/v1/regions_client.js';
import { TargetPoolsClient } from '@google-cloud/compute/build/src/v1/target_pools_client.js';
import { ZoneOperationsClient } from '@google-cloud/compute/build/src/v1/zone_operations_client.js';
import { PassThroughClient } from 'google-auth-library';
import { abortable, type ActionClass, type RegionalRateLimiter } from '../../lib/index.js';
import { DEFAULT_GCE_CALL_TIMEOUT_MS, withCallDeadline, type GaxCallOptions } from './call-deadline.js';
import { classifyGceError } from './errors.js';
import type {
  BackendService,
  CallOptions,
  ComputeApi,
  Image,
  Instance,
  InstanceGroup,
  MachineType,
  Operation,
  Region,
  TargetPool,
} from './compute-api.js';

export interface ComputeClientsOptions {
  /** "https://compute.googleapis.com" (default), or e.g. "http://127.0.0.1:8080" for an emulator. */
  apiEndpoint?: string;
  /** google-gax ClientOptions auth settings: `credentials` + `projectId`, or an `authClient`. */
  auth: Record<string, unknown>;
}

/**
 * Builds (and closes) one Compute client. The first client a process builds parses the Compute API's
 * descriptors synchronously, which takes seconds (about 7 s on a busy 2-core machine). Paid at start-up,
 * before leader election, that pause cannot stall a lease renewal or every reconcile at once; later clients
 * cost well under a second each.
 */
export function preloadComputeDescriptors(apiEndpoint?: string): void {
  const warm = new InstancesClient({ ...gaxEndpointOptions(apiEndpoint), authClient: new PassThroughClient() });
  void warm.close().catch(() => undefined);
}

/** The gax client options for an endpoint URL (host, port and protocol split out, as gax wants them). */
export function gaxEndpointOptions(apiEndpoint: string | undefined): Record<string, unknown> {
  if (!apiEndpoint) return {};
  const u = new URL(apiEndpoint);
  const protocol = u.protocol.replace(':', '');
  const port = u.port ? Number(u.port) : protocol === 'http' ? 80 : 443;
  return { apiEndpoint: u.hostname, port, protocol };
}

export interface SdkComputeApiOptions extends ComputeClientsOptions {
  /** Meters every call, per project, and learns from GCE's throttling replies. */
  limiter?: RegionalRateLimiter;
  /** Deadline of each call, retries included (default DEFAULT_GCE_CALL_TIMEOUT_MS, the client's own). */
  callTimeoutMs?: number;
}

/** GCE's throttling replies (403 rateLimitExceeded, 429) carry no wait to honour: the class's rate follows instead. */
const isGceThrottling = (err: unknown) => classifyGceError(err) === 'throttled';

type Clients = {
  instances: InstancesClient;
  zoneOps: ZoneOperationsClient;
  machineTypes: MachineTypesClient;
  regions: RegionsClient;
  images: ImagesClient;
  imageFamilyViews: ImageFamilyViewsClient;
  targetPools: TargetPoolsClient;
  instanceGroups: InstanceGroupsClient;
  backendServices: RegionBackendServicesClient;
};

const CTORS = {
  instances: InstancesClient,
  zoneOps: ZoneOperationsClient,
  machineTypes: MachineTypesClient,
  regions: RegionsClient,
  images: ImagesClient,
  imageFamilyViews: ImageFamilyViewsClient,
  targetPools: TargetPoolsClient,
  instanceGroups: InstanceGroupsClient,
  backendServices: RegionBackendServicesClient,
};

/** A mutating call answers with a long-running operation; the ComputeApi returns its first Operation. */
async function firstOperation(
  started: Promise<readonly [{ latestResponse: unknown }, ...unknown[]]>,
): Promise<Operation> {
  const [lro] = await started;
  return lro.latestResponse as Operation;
}

/** The `{instances: [{instance}]}` body that target pools and instance groups take. */
function instanceReferences(links: readonly string[]): { instances: { instance: string }[] } {
  return { instances: links.map((instance) => ({ instance })) };
}

export class SdkComputeApi implements ComputeApi {
  private readonly made = new Map<keyof Clients, { close(): Promise<void> }>();
  private readonly clientOptions: Record<string, unknown>;

  constructor(private readonly opts: SdkComputeApiOptions) {
    this.clientOptions = { ...gaxEndpointOptions(opts.apiEndpoint), ...opts.auth };
  }

  /** Clients are built on first use: each costs a few hundred ms to set up and most processes use a few. */
  private client<K extends keyof Clients>(key: K): Clients[K] {
    let c = this.made.get(key);
    if (!c) {
      const Ctor = CTORS[key] as unknown as new (o: Record<string, unknown>) => Clients[K];
      c = new Ctor(this.clientOptions);
      this.made.set(key, c);
    }
    return c as Clients[K];
  }

  private async call<T>(
    project: string,
    cls: ActionClass,
    opts: CallOptions | undefined,
    fn: (gax: GaxCallOptions) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = this.opts.callTimeoutMs ?? DEFAULT_GCE_CALL_TIMEOUT_MS;
    const send = () => withCallDeadline(timeoutMs, opts?.signal, (gax) => abortable(fn(gax), opts?.signal));
    const { limiter } = this.opts;
    if (!limiter) return send();
    return limiter.send(project, cls, send, { signal: opts?.signal, isThrottling: isGceThrottling });
  }

  async close(): Promise<void> {
    const all = [...this.made.values()];
    this.made.clear();
    await Promise.all(all.map((c) => c.close().catch(() => undefined)));
  }

  insertInstance(
    project: string,
    zone: string,
    instance: Instance,
    requestId: string,
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(this.client('instances').insert({ project, zone, requestId, instanceResource: instance }, gax)),
    );
  }

  getInstance(project: string, zone: string, name: string, opts?: CallOptions): Promise<Instance> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('instances').get({ project, zone, instance: name }, gax))[0],
    );
  }

  listInstances(project: string, zone: string, filter: string, opts?: CallOptions): Promise<Instance[]> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('instances').list({ project, zone, filter, maxResults: 500 }, gax))[0],
    );
  }

  deleteInstance(
    project: string,
    zone: string,
    name: string,
    requestId: string,
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(this.client('instances').delete({ project, zone, instance: name, requestId }, gax)),
    );
  }

  getZoneOperation(project: string, zone: string, operation: string, opts?: CallOptions): Promise<Operation> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('zoneOps').get({ project, zone, operation }, gax))[0],
    );
  }

  getMachineType(project: string, zone: string, machineType: string, opts?: CallOptions): Promise<MachineType> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('machineTypes').get({ project, zone, machineType }, gax))[0],
    );
  }

  getRegion(project: string, region: string, opts?: CallOptions): Promise<Region> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('regions').get({ project, region }, gax))[0],
    );
  }

  getImage(project: string, image: string, opts?: CallOptions): Promise<Image> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('images').get({ project, image }, gax))[0],
    );
  }

  getImageFamilyView(project: string, zone: string, family: string, opts?: CallOptions): Promise<Image | undefined> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('imageFamilyViews').get({ project, zone, family }, gax))[0].image ?? undefined,
    );
  }

  getTargetPool(project: string, region: string, pool: string, opts?: CallOptions): Promise<TargetPool> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('targetPools').get({ project, region, targetPool: pool }, gax))[0],
    );
  }

  addTargetPoolInstance(
    project: string,
    region: string,
    pool: string,
    instanceLink: string,
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(
        this.client('targetPools').addInstance(
          {
            project,
            region,
            targetPool: pool,
            targetPoolsAddInstanceRequestResource: instanceReferences([instanceLink]),
          },
          gax,
        ),
      ),
    );
  }

  removeTargetPoolInstance(
    project: string,
    region: string,
    pool: string,
    instanceLink: string,
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(
        this.client('targetPools').removeInstance(
          {
            project,
            region,
            targetPool: pool,
            targetPoolsRemoveInstanceRequestResource: instanceReferences([instanceLink]),
          },
          gax,
        ),
      ),
    );
  }

  getInstanceGroup(project: string, zone: string, group: string, opts?: CallOptions): Promise<InstanceGroup> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('instanceGroups').get({ project, zone, instanceGroup: group }, gax))[0],
    );
  }

  insertInstanceGroup(project: string, zone: string, group: InstanceGroup, opts?: CallOptions): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(this.client('instanceGroups').insert({ project, zone, instanceGroupResource: group }, gax)),
    );
  }

  listInstanceGroupInstances(
    project: string,
    zone: string,
    group: string,
    state: string,
    opts?: CallOptions,
  ): Promise<string[]> {
    return this.call(project, 'describe', opts, async (gax) => {
      const [items] = await this.client('instanceGroups').listInstances(
        {
          project,
          zone,
          instanceGroup: group,
          instanceGroupsListInstancesRequestResource: state ? { instanceState: state } : {},
        },
        gax,
      );
      return items.flatMap((i) => (i.instance ? [i.instance] : []));
    });
  }

  addInstanceGroupInstances(
    project: string,
    zone: string,
    group: string,
    instanceLinks: string[],
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(
        this.client('instanceGroups').addInstances(
          {
            project,
            zone,
            instanceGroup: group,
            instanceGroupsAddInstancesRequestResource: instanceReferences(instanceLinks),
          },
          gax,
        ),
      ),
    );
  }

  removeInstanceGroupInstances(
    project: string,
    zone: string,
    group: string,
    instanceLinks: string[],
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(
        this.client('instanceGroups').removeInstances(
          {
            project,
            zone,
            instanceGroup: group,
            instanceGroupsRemoveInstancesRequestResource: instanceReferences(instanceLinks),
          },
          gax,
        ),
      ),
    );
  }

  getRegionBackendService(project: string, region: string, name: string, opts?: CallOptions): Promise<BackendService> {
    return this.call(
      project,
      'describe',
      opts,
      async (gax) => (await this.client('backendServices').get({ project, region, backendService: name }, gax))[0],
    );
  }

  updateRegionBackendService(
    project: string,
    region: string,
    name: string,
    resource: BackendService,
    opts?: CallOptions,
  ): Promise<Operation> {
    return this.call(project, 'mutate', opts, (gax) =>
      firstOperation(
        this.client('backendServices').update(
          {
            project,
            region,
            backendService: name,
            backendServiceResource: resource,
          },
          gax,
        ),
      ),
    );
  }
}
