// The instance profiles the emulator offers: a few of each VPC family, two GPU profiles and an s390x (LinuxONE)
// one, enough to exercise scale-from-zero for vCPU, memory, GPU and architecture.
import type { ProfileRec } from './model.js';

type Row = Omit<ProfileRec, 'seq'>;

const intel = (name: string, family: ProfileRec['family'], vcpu: number, memory: number, bandwidthGbps: number): Row => ({
  name,
  family,
  vcpu,
  memory,
  architecture: 'amd64',
  vcpuManufacturer: 'intel',
  bandwidthGbps,
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
  {
    ...intel('gx3-16x80x1l4', 'gpu', 16, 80, 32),
    gpu: { count: 1, manufacturer: 'nvidia', model: 'L4', memoryGiB: 24 },
  },
  { name: 'bz2-4x16', family: 'balanced', vcpu: 4, memory: 16, architecture: 's390x', vcpuManufacturer: 'ibm', bandwidthGbps: 8 },
  { name: 'bz2-8x32', family: 'balanced', vcpu: 8, memory: 32, architecture: 's390x', vcpuManufacturer: 'ibm', bandwidthGbps: 16 },
];

/** A fresh copy of the default profiles, numbered from `firstSeq`. */
export function defaultProfiles(firstSeq: number): ProfileRec[] {
  return ROWS.map((r, i) => ({ ...r, gpu: r.gpu ? { ...r.gpu } : undefined, seq: firstSeq + i }));
}
