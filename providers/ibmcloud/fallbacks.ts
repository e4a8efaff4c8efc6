// The IBM Cloud part of capacity fallback: which fields a `fallbacks` entry may set (the profile, and the zone with
// a subnet of that zone) and what capacity an entry asks for (VPC has no spot market). The list's shape, merge
// and field paths, and the launch order, are lib's.
import type { CapacityChoice, FallbackDecoding, FallbackFieldRules } from '../../lib/index.js';
import type { IBMCloudMachineProviderSpec } from './provider-spec.js';

export const IBM_FALLBACK_FIELDS: FallbackFieldRules = {
  fields: ['profile', 'zone', 'primaryNetworkInterface.subnet'],
  together: [['zone', 'primaryNetworkInterface.subnet']],
};

/**
 * The CPU architecture a VPC profile name tells: the letter after its class says the processor (bx2, cx3d, gx3:
 * x86; bz2, mz2: IBM Z). Undefined when the name does not follow the scheme.
 */
export function profileArchitectureOfName(profile: string): 'amd64' | 's390x' | undefined {
  const cpu = (profile.split('-')[0] ?? '').charAt(1);
  if (cpu === 'x') return 'amd64';
  if (cpu === 'z') return 's390x';
  return undefined;
}

/** What capacity a spec asks VPC for. */
export const ibmCapacityChoice = (s: IBMCloudMachineProviderSpec): CapacityChoice => ({
  instanceType: s.profile,
  zone: s.zone,
  market: 'on-demand',
});

/** How the fallbacks list reads for these specs (lib's checkWithFallbacks decodes each entry with the provider's check). */
export const IBM_FALLBACKS: Omit<FallbackDecoding<IBMCloudMachineProviderSpec>, 'decode'> = {
  rules: IBM_FALLBACK_FIELDS,
  typeOf: (s) => ({ field: 'profile', name: s.profile, architecture: profileArchitectureOfName(s.profile) }),
};
