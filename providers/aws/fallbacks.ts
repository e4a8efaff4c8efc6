// The AWS part of capacity fallback: which fields a `fallbacks` entry may set (the instance type, the availability
// zone with a subnet of that zone, the market), how an entry's market replaces the primary's, and what capacity
// an entry asks for. The list's shape, merge and field paths, and the launch order, are lib's.
import type { CapacityChoice, FallbackDecoding, FallbackFieldRules } from '../../lib/index.js';
import type { AWSMachineProviderConfig } from './provider-spec.js';

export const AWS_FALLBACK_FIELDS: FallbackFieldRules = {
  fields: ['instanceType', 'placement.availabilityZone', 'subnet', 'marketType', 'spotMarketOptions'],
  together: [['placement.availabilityZone', 'subnet']],
};

/**
 * An entry's market replaces the primary's whole: `marketType: OnDemand` moves a spot primary to on-demand (its
 * spotMarketOptions go), and `spotMarketOptions` or `marketType: Spot` moves an on-demand primary to spot.
 */
export function adjustAwsMarket(merged: Record<string, unknown>, entry: Record<string, unknown>): void {
  if (entry.marketType === 'OnDemand' && !Object.hasOwn(entry, 'spotMarketOptions')) delete merged.spotMarketOptions;
  if (Object.hasOwn(entry, 'spotMarketOptions') && !Object.hasOwn(entry, 'marketType')) delete merged.marketType;
}

/**
 * The CPU architecture an EC2 instance type name tells: Graviton families carry a "g" among the letters after
 * their generation (m6g, c7gn, t4g, x2gd, im4gn), and a1 is the first Graviton; everything else is x86.
 */
export function ec2ArchitectureOfName(instanceType: string): 'amd64' | 'arm64' {
  const family = instanceType.split('.')[0] ?? '';
  if (family === 'a1') return 'arm64';
  const digit = family.search(/[0-9]/);
  if (digit < 0) return 'amd64';
  const attributes = family.slice(digit).replace(/^[0-9]+/, '');
  return attributes.includes('g') ? 'arm64' : 'amd64';
}

/** Whether a spec launches spot capacity (as buildMarketOptions asks EC2). */
export const isSpotSpec = (c: AWSMachineProviderConfig): boolean =>
  (c.marketType || (c.spotMarketOptions ? 'Spot' : 'OnDemand')) === 'Spot';

/** What capacity a spec asks EC2 for; `subnetZone` is the zone of the spec's subnet when the spec names none. */
export function awsCapacityChoice(c: AWSMachineProviderConfig, subnetZone = ''): CapacityChoice {
  return {
    instanceType: c.instanceType,
    zone: c.placement.availabilityZone || subnetZone,
    market: isSpotSpec(c) ? 'spot' : 'on-demand',
  };
}

/** How the fallbacks list reads for these specs (lib's checkWithFallbacks decodes each entry with the provider's check). */
export const AWS_FALLBACKS: Omit<FallbackDecoding<AWSMachineProviderConfig>, 'decode'> = {
  rules: AWS_FALLBACK_FIELDS,
  adjust: adjustAwsMarket,
  typeOf: (c) => ({
    field: 'instanceType',
    name: c.instanceType,
    architecture: ec2ArchitectureOfName(c.instanceType),
  }),
};
