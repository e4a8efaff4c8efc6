// The Compute Engine calls this provider makes, as one narrow interface (unit tests can fake it), and the
// helpers that read a zone operation's outcome. Its implementation over @google-cloud/compute is
// sdk-compute-api.ts.
import type { protos } from '@google-cloud/compute';
import { GceOperationError } from './errors.js';

export type Instance = protos.google.cloud.compute.v1.IInstance;
export type Operation = protos.google.cloud.compute.v1.IOperation;
export type MachineType = protos.google.cloud.compute.v1.IMachineType;
export type Region = protos.google.cloud.compute.v1.IRegion;
export type Image = protos.google.cloud.compute.v1.IImage;
export type TargetPool = protos.google.cloud.compute.v1.ITargetPool;
export type InstanceGroup = protos.google.cloud.compute.v1.IInstanceGroup;
export type BackendService = protos.google.cloud.compute.v1.IBackendService;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ComputeApi {
  insertInstance(
    project: string,
    zone: string,
    instance: Instance,
    requestId: string,
    opts?: CallOptions,
  ): Promise<Operation>;
  getInstance(project: string, zone: string, name: string, opts?: CallOptions): Promise<Instance>;
  /** Every instance in the zone matching a GCE list filter (all pages). */
  listInstances(project: string, zone: string, filter: string, opts?: CallOptions): Promise<Instance[]>;
  deleteInstance(
    project: string,
    zone: string,
    name: string,
    requestId: string,
    opts?: CallOptions,
  ): Promise<Operation>;
  /** One zoneOperations.get: the operation as it is now (never blocks on it). */
  getZoneOperation(project: string, zone: string, operation: string, opts?: CallOptions): Promise<Operation>;
  getMachineType(project: string, zone: string, machineType: string, opts?: CallOptions): Promise<MachineType>;
  /** regions.get: the region with its quotas (metric, limit, usage). */
  getRegion(project: string, region: string, opts?: CallOptions): Promise<Region>;
  getImage(project: string, image: string, opts?: CallOptions): Promise<Image>;
  getImageFamilyView(project: string, zone: string, family: string, opts?: CallOptions): Promise<Image | undefined>;
  getTargetPool(project: string, region: string, pool: string, opts?: CallOptions): Promise<TargetPool>;
  addTargetPoolInstance(
    project: string,
    region: string,
    pool: string,
    instanceLink: string,
    opts?: CallOptions,
  ): Promise<Operation>;
  removeTargetPoolInstance(
    project: string,
    region: string,
    pool: string,
    instanceLink: string,
    opts?: CallOptions,
  ): Promise<Operation>;
  getInstanceGroup(project: string, zone: string, group: string, opts?: CallOptions): Promise<InstanceGroup>;
  insertInstanceGroup(project: string, zone: string, group: InstanceGroup, opts?: CallOptions): Promise<Operation>;
  /** Self-links of the group's instances in `state` (e.g. RUNNING; "" = all), all pages. */
  listInstanceGroupInstances(
    project: string,
    zone: string,
    group: string,
    state: string,
    opts?: CallOptions,
  ): Promise<string[]>;
  addInstanceGroupInstances(
    project: string,
    zone: string,
    group: string,
    instanceLinks: string[],
    opts?: CallOptions,
  ): Promise<Operation>;
  removeInstanceGroupInstances(
    project: string,
    zone: string,
    group: string,
    instanceLinks: string[],
    opts?: CallOptions,
  ): Promise<Operation>;
  getRegionBackendService(project: string, region: string, name: string, opts?: CallOptions): Promise<BackendService>;
  updateRegionBackendService(
    project: string,
    region: string,
    name: string,
    resource: BackendService,
    opts?: CallOptions,
  ): Promise<Operation>;
}

/** compute.v1.Operation.Status.DONE as the REST transport's int enum encoding sends it (protos.d.ts). */
export const OPERATION_STATUS_DONE = 2104194 as protos.google.cloud.compute.v1.Operation.Status;

/** Whether a zone operation has finished (REST answers the enum as its name or, with int encoding, its number). */
export const isOperationDone = (op: Operation): boolean => op.status === 'DONE' || op.status === OPERATION_STATUS_DONE;

/** Throws the operation's own error when a finished operation failed (quota, stock-out, bad image...). */
export function throwIfOperationFailed(op: Operation): void {
  const errors = op.error?.errors ?? [];
  if (errors.length > 0) throw new GceOperationError(op.name ?? '', op.httpErrorStatusCode ?? undefined, errors);
}
