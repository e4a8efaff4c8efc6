// A slice of the real EC2 instance-type catalogue (vCPU and MiB as DescribeInstanceTypes reports them).
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
const gpu = (
  base: InstanceTypeSpec,
  name: string,
  count: number,
  memoryMiB: number,
): InstanceTypeSpec => ({ ...base, gpus: [{ name, manufacturer: 'NVIDIA', count, memoryMiB }] });

export const DEFAULT_INSTANCE_TYPES: readonly InstanceTypeSpec[] = [
  { ...x86('t2.medium', 2, 4096, 0.0464), architectures: ['i386', 'x86_64'], currentGeneration: true },
  x86('t3.medium', 2, 4096, 0.0416),
  x86('t3.large', 2, 8192, 0.0832),
  x86('m5.large', 2, 8192, 0.096),
  x86('m5.xlarge', 4, 16384, 0.192),
  x86('m5.2xlarge', 8, 32768, 0.384),
  x86('m5.4xlarge', 16, 65536, 0.768),
  x86('m6i.large', 2, 8192, 0.096),
  x86('m6i.xlarge', 4, 16384, 0.192),
  x86('m6i.2xlarge', 8, 32768, 0.384),
  x86('m6a.xlarge', 4, 16384, 0.1728),
  x86('c5.xlarge', 4, 8192, 0.17),
  x86('c5.2xlarge', 8, 16384, 0.34),
  x86('r5.xlarge', 4, 32768, 0.252),
  { ...x86('m4.large', 2, 8192, 0.1), currentGeneration: false },
  arm('m6g.large', 2, 8192, 0.077),
  arm('m6g.xlarge', 4, 16384, 0.154),
  arm('c7g.xlarge', 4, 8192, 0.145),
  arm('r6g.large', 2, 16384, 0.1008),
  gpu(x86('g4dn.xlarge', 4, 16384, 0.526), 'T4', 1, 16384),
  gpu(x86('g5.xlarge', 4, 16384, 1.006), 'A10G', 1, 24576),
  gpu(x86('p3.8xlarge', 32, 249856, 12.24), 'V100', 4, 16384),
];
