// A slice of the real EC2 instance-type catalogue: vCPU, memory MiB, architecture and GPUs as
// DescribeInstanceTypes reports them, and us-east-1 Linux on-demand prices (which drive the emulated spot
// price). Current families come in their common sizes (large..8xlarge) so MachineSets of any of them scale
// from zero with the right figures; the older families stay for worlds that still use them.
import type { InstanceTypeSpec } from './model.js';

const x86 = (instanceType: string, vCpus: number, memoryMiB: number, onDemandPrice: number): InstanceTypeSpec => ({
  instanceType,
  vCpus,
  memoryMiB,
  architectures: ['x86_64'],
  currentGeneration: true,
  onDemandPrice,
});
const arm = (instanceType: string, vCpus: number, memoryMiB: number, onDemandPrice: number): InstanceTypeSpec => ({
  ...x86(instanceType, vCpus, memoryMiB, onDemandPrice),
  architectures: ['arm64'],
});
const gpu = (base: InstanceTypeSpec, name: string, count: number, memoryMiB: number): InstanceTypeSpec => ({
  ...base,
  gpus: [{ name, manufacturer: 'NVIDIA', count, memoryMiB }],
});

/** large..8xlarge of one family: memory per vCPU is fixed within a family, and so is the price per vCPU. */
const SIZES: [string, number][] = [
  ['large', 2],
  ['xlarge', 4],
  ['2xlarge', 8],
  ['4xlarge', 16],
  ['8xlarge', 32],
];
/** The family's sizes from `from` to `to` (the older families here list only some of them). */
const family = (
  make: typeof x86,
  prefix: string,
  memoryMiBPerVcpu: number,
  largePrice: number,
  [from, to]: [string, string] = ['large', '8xlarge'],
): InstanceTypeSpec[] =>
  SIZES.slice(
    SIZES.findIndex(([size]) => size === from),
    SIZES.findIndex(([size]) => size === to) + 1,
  ).map(([size, vCpus]) =>
    make(`${prefix}.${size}`, vCpus, vCpus * memoryMiBPerVcpu, Math.round((largePrice * vCpus * 1e5) / 2) / 1e5),
  );

// NVIDIA L4 (24 GB, of which EC2 reports 22888 MiB), one per instance up to 16xlarge, four or eight beyond.
const L4_MIB = 22888;
const g6 = (size: string, vCpus: number, memoryGiB: number, gpus: number, price: number): InstanceTypeSpec =>
  gpu(x86(`g6.${size}`, vCpus, memoryGiB * 1024, price), 'L4', gpus, L4_MIB);

export const DEFAULT_INSTANCE_TYPES: readonly InstanceTypeSpec[] = [
  { ...x86('t2.medium', 2, 4096, 0.0464), architectures: ['i386', 'x86_64'], currentGeneration: true },
  x86('t3.medium', 2, 4096, 0.0416),
  x86('t3.large', 2, 8192, 0.0832),
  ...family(x86, 'm5', 4096, 0.096, ['large', '4xlarge']),
  ...family(x86, 'm6i', 4096, 0.096, ['large', '2xlarge']),
  x86('m6a.xlarge', 4, 16384, 0.1728),
  ...family(x86, 'c5', 2048, 0.085, ['xlarge', '2xlarge']),
  x86('r5.xlarge', 4, 32768, 0.252),
  { ...x86('m4.large', 2, 8192, 0.1), currentGeneration: false },
  ...family(arm, 'm6g', 4096, 0.077, ['large', 'xlarge']),
  arm('r6g.large', 2, 16384, 0.1008),
  gpu(x86('g4dn.xlarge', 4, 16384, 0.526), 'T4', 1, 16384),
  gpu(x86('g5.xlarge', 4, 16384, 1.006), 'A10G', 1, 24576),
  gpu(x86('p3.8xlarge', 32, 249856, 12.24), 'V100', 4, 16384),
  // Intel Sapphire Rapids (7i), AMD Genoa (7a), Graviton3 (7g) and Graviton4 (8g).
  ...family(x86, 'm7i', 4096, 0.1008),
  ...family(x86, 'm7a', 4096, 0.11592),
  ...family(arm, 'm7g', 4096, 0.0816),
  ...family(x86, 'c7i', 2048, 0.08925),
  ...family(arm, 'c7g', 2048, 0.0725),
  ...family(x86, 'r7i', 8192, 0.1323),
  ...family(arm, 'm8g', 4096, 0.08976),
  ...family(arm, 'c8g', 2048, 0.07976),
  g6('xlarge', 4, 16, 1, 0.8048),
  g6('2xlarge', 8, 32, 1, 0.9776),
  g6('4xlarge', 16, 64, 1, 1.3232),
  g6('8xlarge', 32, 128, 1, 2.0144),
  g6('12xlarge', 48, 192, 4, 4.6016),
  g6('16xlarge', 64, 256, 1, 3.3968),
  g6('24xlarge', 96, 384, 4, 6.6752),
  g6('48xlarge', 192, 768, 8, 13.3504),
  // Eight NVIDIA H100 80 GB (81920 MiB each), 2 TiB of memory.
  gpu(x86('p5.48xlarge', 192, 2097152, 55.04), 'H100', 8, 81920),
];
