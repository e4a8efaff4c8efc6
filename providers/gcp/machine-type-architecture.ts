// The CPU architecture of a GCE machine type, from its name (or what GCE says of it): what scale-from-zero
// publishes and what a fallback entry must share with its primary.
import type { Architecture } from '../../lib/index.js';

/** Machine families on Arm CPUs (Ampere Altra: T2A; Google Axion: C4A, N4A). */
export const ARM64_FAMILIES = ['t2a', 'c4a', 'n4a'];

/** arm64 for Arm families (or when GCE says ARM64), else amd64. */
export function architectureOf(machineType: string, apiArchitecture?: string | null): Architecture {
  if (String(apiArchitecture ?? '').toUpperCase() === 'ARM64') return 'arm64';
  const family = machineType.split('-')[0] ?? '';
  return ARM64_FAMILIES.includes(family) ? 'arm64' : 'amd64';
}
