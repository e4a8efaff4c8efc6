// The seed catalog: machine types, accelerator types, disk types and public images with the fields the
// providers read (guestCpus, memoryMb, accelerators, architecture, guestOsFeatures).
import type { AcceleratorTypeSpec, GceImage, MachineTypeSpec } from './model.js';

export const DEFAULT_MACHINE_TYPES: MachineTypeSpec[] = [
  { name: 'e2-medium', guestCpus: 2, memoryMb: 4096, isSharedCpu: true, architecture: 'X86_64' },
  { name: 'e2-standard-2', guestCpus: 2, memoryMb: 8192, isSharedCpu: false, architecture: 'X86_64' },
  { name: 'e2-standard-4', guestCpus: 4, memoryMb: 16384, isSharedCpu: false, architecture: 'X86_64' },
  { name: 'n1-standard-4', guestCpus: 4, memoryMb: 15360, isSharedCpu: false, architecture: 'X86_64' },
  { name: 'n2-standard-4', guestCpus: 4, memoryMb: 16384, isSharedCpu: false, architecture: 'X86_64' },
  { name: 'n2-standard-8', guestCpus: 8, memoryMb: 32768, isSharedCpu: false, architecture: 'X86_64' },
  { name: 'n2d-standard-4', guestCpus: 4, memoryMb: 16384, isSharedCpu: false, architecture: 'X86_64' },
  { name: 'c3-standard-4', guestCpus: 4, memoryMb: 16384, isSharedCpu: false, architecture: 'X86_64' },
  { name: 't2a-standard-4', guestCpus: 4, memoryMb: 16384, isSharedCpu: false, architecture: 'ARM64' },
  {
    name: 'a2-highgpu-1g',
    guestCpus: 12,
    memoryMb: 87040,
    isSharedCpu: false,
    architecture: 'X86_64',
    accelerators: [{ guestAcceleratorType: 'nvidia-tesla-a100', guestAcceleratorCount: 1 }],
  },
  {
    name: 'g2-standard-4',
    guestCpus: 4,
    memoryMb: 16384,
    isSharedCpu: false,
    architecture: 'X86_64',
    accelerators: [{ guestAcceleratorType: 'nvidia-l4', guestAcceleratorCount: 1 }],
  },
];

export const DEFAULT_ACCELERATOR_TYPES: AcceleratorTypeSpec[] = [
  { name: 'nvidia-tesla-a100', description: 'NVIDIA A100 40GB', maximumCardsPerInstance: 16, quotaMetric: 'NVIDIA_A100_GPUS' },
  { name: 'nvidia-l4', description: 'NVIDIA L4', maximumCardsPerInstance: 8, quotaMetric: 'NVIDIA_L4_GPUS' },
  { name: 'nvidia-tesla-t4', description: 'NVIDIA T4', maximumCardsPerInstance: 4, quotaMetric: 'NVIDIA_T4_GPUS' },
  { name: 'nvidia-tesla-v100', description: 'NVIDIA V100', maximumCardsPerInstance: 8, quotaMetric: 'NVIDIA_V100_GPUS' },
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
  NVIDIA_T4_GPUS: 16,
  PREEMPTIBLE_NVIDIA_T4_GPUS: 16,
  NVIDIA_V100_GPUS: 16,
  PREEMPTIBLE_NVIDIA_V100_GPUS: 16,
};
