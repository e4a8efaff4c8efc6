// The seed account: resources named the way the OpenShift installer names them on IBM Cloud VPC
// ({infra}-vpc, {infra}-subnet-compute-{zone}, {infra}-sg-cluster-wide, {infra}-sg-openshift-net), a
// resource group named after the cluster plus "Default", private RHCOS images for amd64 and s390x, and a
// dedicated host in the first zone.
import { SeededRandom } from '../kit/index.js';
import type { IbmWorld } from './model.js';
import { defaultProfiles } from './profile-table.js';

export const DEFAULT_REGION = 'us-south';
export const DEFAULT_CLUSTER_ID = 'test-cluster';
export const DEFAULT_ACCOUNT_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

export interface DefaultWorldOptions {
  region?: string;
  clusterId?: string;
  accountId?: string;
  /** Seeds the resource ids. Default 1. */
  seed?: number;
}

/** IBM prefixes zonal resource ids with a zone code (0717_ for us-south-1 and so on). */
export function zoneCode(zones: readonly string[], zone: string): string {
  const i = Math.max(0, zones.indexOf(zone));
  return `07${i + 1}7`;
}

export function defaultWorld(opts: DefaultWorldOptions = {}): IbmWorld {
  const region = opts.region ?? DEFAULT_REGION;
  const infra = opts.clusterId ?? DEFAULT_CLUSTER_ID;
  const rnd = new SeededRandom(opts.seed ?? 1);
  const zones = [1, 2, 3].map((n) => `${region}-${n}`);
  let seq = 1;
  const next = () => seq++;
  const regional = () => `r006-${rnd.uuid()}`;
  const zonal = (zone: string) => `${zoneCode(zones, zone)}-${rnd.uuid()}`;

  const clusterRg = { id: rnd.hex(32), name: infra, default: false, seq: next() };
  const defaultRg = { id: rnd.hex(32), name: 'Default', default: true, seq: next() };
  const vpc = {
    id: regional(),
    name: `${infra}-vpc`,
    resourceGroupId: clusterRg.id,
    createdAt: Date.UTC(2026, 0, 1),
    seq: next(),
  };

  const subnets = zones.flatMap((zone, i) => [
    {
      id: zonal(zone),
      name: `${infra}-subnet-control-plane-${zone}`,
      vpcId: vpc.id,
      zone,
      resourceGroupId: clusterRg.id,
      cidr: `10.241.${i * 2}.0/24`,
      nextHost: 4,
      seq: next(),
    },
    {
      id: zonal(zone),
      name: `${infra}-subnet-compute-${zone}`,
      vpcId: vpc.id,
      zone,
      resourceGroupId: clusterRg.id,
      cidr: `10.241.${i * 2 + 1}.0/24`,
      nextHost: 4,
      seq: next(),
    },
  ]);

  const sg = (name: string) => ({ id: regional(), name, vpcId: vpc.id, resourceGroupId: clusterRg.id, seq: next() });
  const securityGroups = [
    sg(`${infra}-sg-cluster-wide`),
    sg(`${infra}-sg-openshift-net`),
    sg(`${infra}-sg-kube-api-lb`),
    sg(`${infra}-sg-control-plane`),
  ];

  const images = [
    {
      id: regional(),
      name: `${infra}-rhcos`,
      visibility: 'private' as const,
      resourceGroupId: clusterRg.id,
      architecture: 'amd64' as const,
      osName: 'rhel-coreos-stable-amd64',
      status: 'available' as const,
      minimumProvisionedSize: 100,
      seq: next(),
    },
    {
      id: regional(),
      name: `${infra}-rhcos-s390x`,
      visibility: 'private' as const,
      resourceGroupId: clusterRg.id,
      architecture: 's390x' as const,
      osName: 'rhel-coreos-stable-s390x',
      status: 'available' as const,
      minimumProvisionedSize: 100,
      seq: next(),
    },
    {
      id: regional(),
      name: 'ibm-redhat-9-4-minimal-amd64-1',
      visibility: 'public' as const,
      architecture: 'amd64' as const,
      osName: 'red-9-amd64',
      status: 'available' as const,
      minimumProvisionedSize: 100,
      seq: next(),
    },
  ];

  const firstZone = zones[0] as string;
  const dedicatedHosts = [
    {
      id: zonal(firstZone),
      name: `${infra}-dh-${firstZone}`,
      zone: firstZone,
      resourceGroupId: clusterRg.id,
      supportedProfiles: ['bx2-2x8', 'bx2-4x16', 'bx2-8x32', 'bx2-16x64'],
      instancePlacementEnabled: true,
      seq: next(),
    },
  ];

  const profiles = defaultProfiles(seq);
  seq += profiles.length;

  return {
    region,
    zones,
    accountId: opts.accountId ?? DEFAULT_ACCOUNT_ID,
    clusterId: infra,
    nextSeq: seq,
    tokenSecret: rnd.hex(64),
    resourceGroups: [clusterRg, defaultRg],
    vpcs: [vpc],
    subnets,
    securityGroups,
    images,
    dedicatedHosts,
    profiles,
    instances: [],
    tags: {},
  };
}
