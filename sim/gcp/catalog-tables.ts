// The seed catalog: machine types, accelerator types, disk types and public images with the fields the
// providers read (guestCpus, memoryMb, accelerators, architecture, guestOsFeatures).
import type { AcceleratorTypeSpec, GceImage, MachineTypeSpec } from './model.js';

const x86 = (name: string, guestCpus: number, memoryMb: number): MachineTypeSpec => ({
  name,
  guestCpus,
  memoryMb,
  isSharedCpu: false,
  architecture: 'X86_64',
});
const arm = (name: string, guestCpus: number, memoryMb: number): MachineTypeSpec => ({
  ...x86(name, guestCpus, memoryMb),
  architecture: 'ARM64',
});
const withGpus = (
  t: MachineTypeSpec,
  guestAcceleratorType: string,
  guestAcceleratorCount: number,
): MachineTypeSpec => ({
  ...t,
  accelerators: [{ guestAcceleratorType, guestAcceleratorCount }],
});

/** `<series>-<shape>-<n>` for each vCPU count, at a fixed memory per vCPU (MiB; GCE's memoryMb is MiB). */
const series = (make: typeof x86, prefix: string, vcpus: number[], mibPerVcpu: number): MachineTypeSpec[] =>
  vcpus.map((n) => make(`${prefix}-${n}`, n, n * mibPerVcpu));

const GIB = 1024;

// G2: NVIDIA L4, 4 GiB per vCPU; one GPU up to -16 and -32, two at -24, four at -48, eight at -96.
const G2: [number, number][] = [
  [4, 1],
  [8, 1],
  [12, 1],
  [16, 1],
  [24, 2],
  [32, 1],
  [48, 4],
  [96, 8],
];

// A3 High: NVIDIA H100 80GB, 26 vCPU and 234 GB per GPU; A3 Mega: the same host shape with H100 Mega.
const A3_HIGH: [string, number][] = [
  ['a3-highgpu-1g', 1],
  ['a3-highgpu-2g', 2],
  ['a3-highgpu-4g', 4],
  ['a3-highgpu-8g', 8],
];

/**
 * Machine types with the vCPU and memory the Compute Engine machine-family pages publish. Current series
 * come in their common sizes (standard-2..-16 and up, plus a highcpu and a highmem shape) so that MachineSets
 * of any of them scale from zero with the right figures.
 */
export const DEFAULT_MACHINE_TYPES: MachineTypeSpec[] = [
  { name: 'e2-medium', guestCpus: 2, memoryMb: 4096, isSharedCpu: true, architecture: 'X86_64' },
  x86('e2-standard-2', 2, 8192),
  x86('e2-standard-4', 4, 16384),
  x86('n1-standard-4', 4, 15360),
  x86('n2-standard-4', 4, 16384),
  x86('n2-standard-8', 8, 32768),
  x86('c3-standard-4', 4, 16384),
  // N2D (AMD EPYC): 4 GiB per vCPU standard, 1 highcpu, 8 highmem.
  ...series(x86, 'n2d-standard', [2, 4, 8, 16, 32], 4 * GIB),
  ...series(x86, 'n2d-highcpu', [4, 8], 1 * GIB),
  ...series(x86, 'n2d-highmem', [4, 8], 8 * GIB),
  // N4 (Intel Emerald Rapids): 4 GiB per vCPU standard, 2 highcpu, 8 highmem.
  ...series(x86, 'n4-standard', [2, 4, 8, 16, 32], 4 * GIB),
  ...series(x86, 'n4-highcpu', [4, 8], 2 * GIB),
  ...series(x86, 'n4-highmem', [4, 8], 8 * GIB),
  // C4 (Intel Emerald Rapids): 3.75 GiB per vCPU standard (but 7 GiB, not 7.5, at 2 vCPU), 2 highcpu, 7.75 highmem.
  x86('c4-standard-2', 2, 7 * GIB),
  ...series(x86, 'c4-standard', [4, 8, 16, 32], 3.75 * GIB),
  ...series(x86, 'c4-highcpu', [4, 8], 2 * GIB),
  ...series(x86, 'c4-highmem', [4, 8], 7.75 * GIB),
  // C4A (Google Axion, Arm): 4 GiB per vCPU standard, 2 highcpu, 8 highmem.
  ...series(arm, 'c4a-standard', [1, 2, 4, 8, 16, 32, 48, 64, 72], 4 * GIB),
  ...series(arm, 'c4a-highcpu', [4, 8], 2 * GIB),
  ...series(arm, 'c4a-highmem', [4, 8], 8 * GIB),
  // T2A (Ampere Altra, Arm): 4 GiB per vCPU.
  ...series(arm, 't2a-standard', [1, 2, 4, 8, 16, 32, 48], 4 * GIB),
  withGpus(x86('a2-highgpu-1g', 12, 87040), 'nvidia-tesla-a100', 1),
  ...G2.map(([n, gpus]) => withGpus(x86(`g2-standard-${n}`, n, n * 4 * GIB), 'nvidia-l4', gpus)),
  ...A3_HIGH.map(([name, gpus]) => withGpus(x86(name, 26 * gpus, 234 * GIB * gpus), 'nvidia-h100-80gb', gpus)),
  withGpus(x86('a3-megagpu-8g', 208, 1872 * GIB), 'nvidia-h100-mega-80gb', 8),
];

export const DEFAULT_ACCELERATOR_TYPES: AcceleratorTypeSpec[] = [
  {
    name: 'nvidia-tesla-a100',
    description: 'NVIDIA A100 40GB',
    maximumCardsPerInstance: 16,
    quotaMetric: 'NVIDIA_A100_GPUS',
  },
  { name: 'nvidia-l4', description: 'NVIDIA L4', maximumCardsPerInstance: 8, quotaMetric: 'NVIDIA_L4_GPUS' },
  {
    name: 'nvidia-h100-80gb',
    description: 'NVIDIA H100 80GB',
    maximumCardsPerInstance: 8,
    quotaMetric: 'NVIDIA_H100_GPUS',
  },
  {
    name: 'nvidia-h100-mega-80gb',
    description: 'NVIDIA H100 80GB MEGA',
    maximumCardsPerInstance: 8,
    quotaMetric: 'NVIDIA_H100_MEGA_GPUS',
  },
  { name: 'nvidia-tesla-t4', description: 'NVIDIA T4', maximumCardsPerInstance: 4, quotaMetric: 'NVIDIA_T4_GPUS' },
  {
    name: 'nvidia-tesla-v100',
    description: 'NVIDIA V100',
    maximumCardsPerInstance: 8,
    quotaMetric: 'NVIDIA_V100_GPUS',
  },
];

export const DEFAULT_DISK_TYPES = ['pd-standard', 'pd-balanced', 'pd-ssd', 'hyperdisk-balanced'];

const UEFI_FEATURES = ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC', 'SEV_CAPABLE', 'SEV_SNP_CAPABLE'];

export const DEFAULT_IMAGES: GceImage[] = [
  {
    project: 'rhcos-cloud',
    name: 'rhcos-9-6-20251023-0-gcp-x86-64',
    id: '4402558211839010001',
    family: 'rhcos-9-6-x86-64',
    architecture: 'X86_64',
    diskSizeGb: 16,
    guestOsFeatures: UEFI_FEATURES,
    creationTimestamp: '2025-10-23T09:12:00.000-07:00',
    status: 'READY',
  },
  {
    project: 'rhcos-cloud',
    name: 'rhcos-9-6-20251023-0-gcp-aarch64',
    id: '4402558211839010002',
    family: 'rhcos-9-6-aarch64',
    architecture: 'ARM64',
    diskSizeGb: 16,
    guestOsFeatures: ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC'],
    creationTimestamp: '2025-10-23T09:12:00.000-07:00',
    status: 'READY',
  },
  {
    // A pre-4.13 boot image: not UEFI compatible, so Shielded VM options are refused with it.
    project: 'rhcos-cloud',
    name: 'rhcos-410-84-202201250002-0-gcp-x86-64',
    id: '4402558211839010003',
    family: 'rhcos-4-10',
    architecture: 'X86_64',
    diskSizeGb: 16,
    guestOsFeatures: ['VIRTIO_SCSI_MULTIQUEUE'],
    creationTimestamp: '2022-01-25T09:00:00.000-07:00',
    status: 'READY',
  },
  {
    project: 'debian-cloud',
    name: 'debian-12-bookworm-v20250101',
    id: '4402558211839010004',
    family: 'debian-12',
    architecture: 'X86_64',
    diskSizeGb: 10,
    guestOsFeatures: UEFI_FEATURES,
    creationTimestamp: '2025-01-01T09:00:00.000-07:00',
    status: 'READY',
    deprecatedState: 'DEPRECATED',
  },
  {
    project: 'debian-cloud',
    name: 'debian-12-bookworm-v20251014',
    id: '4402558211839010005',
    family: 'debian-12',
    architecture: 'X86_64',
    diskSizeGb: 10,
    guestOsFeatures: UEFI_FEATURES,
    creationTimestamp: '2025-10-14T09:00:00.000-07:00',
    status: 'READY',
  },
  {
    project: 'debian-cloud',
    name: 'debian-12-bookworm-arm64-v20251014',
    id: '4402558211839010006',
    family: 'debian-12-arm64',
    architecture: 'ARM64',
    diskSizeGb: 10,
    guestOsFeatures: ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC'],
    creationTimestamp: '2025-10-14T09:00:00.000-07:00',
    status: 'READY',
  },
];

/** Region quota limits used when a world does not set its own (high enough not to get in a test's way). */
export const DEFAULT_QUOTA_LIMITS: Record<string, number> = {
  CPUS: 2400,
  PREEMPTIBLE_CPUS: 2400,
  INSTANCES: 1000,
  DISKS_TOTAL_GB: 409600,
  SSD_TOTAL_GB: 409600,
  IN_USE_ADDRESSES: 1000,
  NVIDIA_A100_GPUS: 16,
  PREEMPTIBLE_NVIDIA_A100_GPUS: 16,
  NVIDIA_L4_GPUS: 16,
  PREEMPTIBLE_NVIDIA_L4_GPUS: 16,
  NVIDIA_H100_GPUS: 16,
  PREEMPTIBLE_NVIDIA_H100_GPUS: 16,
  NVIDIA_H100_MEGA_GPUS: 16,
  PREEMPTIBLE_NVIDIA_H100_MEGA_GPUS: 16,
  NVIDIA_T4_GPUS: 16,
  PREEMPTIBLE_NVIDIA_T4_GPUS: 16,
  NVIDIA_V100_GPUS: 16,
  PREEMPTIBLE_NVIDIA_V100_GPUS: 16,
};
