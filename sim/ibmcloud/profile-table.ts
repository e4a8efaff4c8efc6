// The instance profiles the emulator offers: a few of each second-generation VPC family, the third generation
// (Intel Sapphire Rapids bx3d/cx3d/mx3d in their published sizes, gx3 with NVIDIA L4 or L40S), a V100 GPU
// profile and s390x (LinuxONE) ones, enough to exercise scale-from-zero for vCPU, memory, GPU and architecture.
import type { ProfileRec } from './model.js';

type Row = Omit<ProfileRec, 'seq'>;

const intel = (
  name: string,
  family: ProfileRec['family'],
  vcpu: number,
  memory: number,
  bandwidthGbps: number,
): Row => ({
  name,
  family,
  vcpu,
  memory,
  architecture: 'amd64',
  vcpuManufacturer: 'intel',
  bandwidthGbps,
});

/** The vCPU counts IBM publishes for each third-generation family. */
const GEN3_VCPUS = [2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 176];
// Third-generation bandwidth grows by 2 Gbps per vCPU up to the 200 Gbps ceiling of the largest profiles.
const gen3Bandwidth = (vcpu: number) => Math.min(2 * vcpu, 200);
/** A third-generation family at a fixed GiB per vCPU: bx3d 1:5, cx3d 1:2.5, mx3d 1:10. */
const gen3 = (prefix: string, family: ProfileRec['family'], gibPerVcpu: number): Row[] =>
  GEN3_VCPUS.map((vcpu) =>
    intel(`${prefix}-${vcpu}x${vcpu * gibPerVcpu}`, family, vcpu, vcpu * gibPerVcpu, gen3Bandwidth(vcpu)),
  );

const L4 = { manufacturer: 'nvidia', model: 'L4', memoryGiB: 24 };
const L40S = { manufacturer: 'nvidia', model: 'L40S', memoryGiB: 48 };
/** gx3-<vcpu>x<GiB>x<count><gpu>: 5 GiB per vCPU, 16 vCPU per L4 and 24 per L40S. */
const gx3 = (vcpu: number, count: number, gpu: typeof L4, suffix: string): Row => ({
  ...intel(`gx3-${vcpu}x${vcpu * 5}x${count}${suffix}`, 'gpu', vcpu, vcpu * 5, gen3Bandwidth(vcpu)),
  gpu: { count, ...gpu },
});

const ROWS: Row[] = [
  intel('bx2-2x8', 'balanced', 2, 8, 4),
  intel('bx2-4x16', 'balanced', 4, 16, 8),
  intel('bx2-8x32', 'balanced', 8, 32, 16),
  intel('bx2-16x64', 'balanced', 16, 64, 32),
  intel('bx2d-4x16', 'balanced', 4, 16, 8),
  intel('cx2-2x4', 'compute', 2, 4, 4),
  intel('cx2-8x16', 'compute', 8, 16, 16),
  intel('mx2-4x32', 'memory', 4, 32, 8),
  intel('mx2-96x768', 'memory', 96, 768, 80),
  {
    ...intel('gx2-8x64x1v100', 'gpu', 8, 64, 16),
    gpu: { count: 1, manufacturer: 'nvidia', model: 'Tesla V100', memoryGiB: 16 },
  },
  ...gen3('bx3d', 'balanced', 5),
  ...gen3('cx3d', 'compute', 2.5),
  ...gen3('mx3d', 'memory', 10),
  gx3(16, 1, L4, 'l4'),
  gx3(32, 2, L4, 'l4'),
  gx3(64, 4, L4, 'l4'),
  gx3(24, 1, L40S, 'l40s'),
  gx3(48, 2, L40S, 'l40s'),
  {
    name: 'bz2-4x16',
    family: 'balanced',
    vcpu: 4,
    memory: 16,
    architecture: 's390x',
    vcpuManufacturer: 'ibm',
    bandwidthGbps: 8,
  },
  {
    name: 'bz2-8x32',
    family: 'balanced',
    vcpu: 8,
    memory: 32,
    architecture: 's390x',
    vcpuManufacturer: 'ibm',
    bandwidthGbps: 16,
  },
];

/** A fresh copy of the default profiles, numbered from `firstSeq`. */
export function defaultProfiles(firstSeq: number): ProfileRec[] {
  return ROWS.map((r, i) => ({ ...r, gpu: r.gpu ? { ...r.gpu } : undefined, seq: firstSeq + i }));
}
