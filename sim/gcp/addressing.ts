// Internal IPs from a subnetwork's range: the first free host address (GCE reserves the network, the gateway
// .1 and the last two addresses), or a caller-chosen one that must be in range and free.
import { GceApiError, invalidField } from './api-error.js';
import type { GceState } from './gce-state.js';
import { selfLink, subnetworkPath } from './links.js';
import type { GceSubnetwork } from './model.js';

function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}
function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function inUse(state: GceState, sub: GceSubnetwork): Set<string> {
  const link = selfLink(subnetworkPath(sub.project, sub.region, sub.name));
  const used = new Set<string>();
  for (const inst of state.world.instances) {
    for (const nic of (inst.resource.networkInterfaces as { subnetwork?: string; networkIP?: string }[] | undefined) ??
      []) {
      if (nic.subnetwork === link && nic.networkIP) used.add(nic.networkIP);
    }
  }
  return used;
}

export function allocateInternalIp(state: GceState, sub: GceSubnetwork, field: string, requested?: unknown): string {
  const [base = '0.0.0.0', bitsText = '32'] = sub.ipCidrRange.split('/');
  const size = 2 ** (32 - Number(bitsText));
  const first = ipToInt(base);
  const used = inUse(state, sub);
  if (requested !== undefined && requested !== null && requested !== '') {
    const ip = typeof requested === 'string' ? requested : JSON.stringify(requested);
    const n = /^\d{1,3}(\.\d{1,3}){3}$/.test(ip) ? ipToInt(ip) : NaN;
    if (!(n >= first + 2 && n < first + size - 2))
      throw invalidField(field, ip, `The IP address is not in the range ${sub.ipCidrRange} of the subnetwork.`);
    if (used.has(ip)) throw invalidField(field, ip, 'The IP address is already being used by another resource.');
    return ip;
  }
  for (let n = first + 2; n < first + size - 2; n++) {
    const ip = intToIp(n);
    if (!used.has(ip)) return ip;
  }
  throw new GceApiError(
    400,
    'ipSpaceExhausted',
    `IP space of '${subnetworkPath(sub.project, sub.region, sub.name)}' is exhausted.`,
  );
}
