// Builds an instance's network interfaces from an instances.insert body: resolves network and subnetwork (the
// subnetwork must be in the instance's region and on the named network), allocates the internal IP, and fills
// the one-to-one NAT access config GCE stores.
import { allocateInternalIp } from './addressing.js';
import { invalidField } from './api-error.js';
import type { GceState } from './gce-state.js';
import type { Json } from './insert-body.js';
import { list, obj } from './insert-body.js';
import { networkPath, selfLink, subnetworkPath } from './links.js';
import type { GceSubnetwork } from './model.js';
import { resolveNetworkRef, resolveSubnetworkRef } from './references.js';
import { fingerprint } from './validation.js';

export function buildNics(state: GceState, project: string, region: string, raw: unknown): Json[] {
  const nics = list(raw);
  if (nics.length === 0)
    throw invalidField('resource.networkInterfaces', '', 'At least one network interface is required.');
  return nics.map((n, i) => {
    const nic = obj(n);
    const field = `resource.networkInterfaces[${i}]`;
    let sub: GceSubnetwork | undefined;
    let netName: string;
    let netProject: string;
    if (typeof nic.subnetwork === 'string' && nic.subnetwork !== '') {
      sub = resolveSubnetworkRef(state, project, nic.subnetwork, `${field}.subnetwork`);
      if (sub.region !== region)
        throw invalidField(`${field}.subnetwork`, nic.subnetwork, `The subnetwork must be in region '${region}'.`);
      netName = sub.network;
      netProject = sub.project;
      if (typeof nic.network === 'string' && nic.network !== '') {
        const net = resolveNetworkRef(state, project, nic.network, `${field}.network`);
        if (net.name !== sub.network || net.project !== sub.project) {
          throw invalidField(
            `${field}.subnetwork`,
            nic.subnetwork,
            `The subnetwork does not belong to network '${net.name}'.`,
          );
        }
      }
    } else {
      const net = resolveNetworkRef(
        state,
        project,
        typeof nic.network === 'string' && nic.network !== '' ? nic.network : 'global/networks/default',
        `${field}.network`,
      );
      netName = net.name;
      netProject = net.project;
      sub = state.world.subnetworks.find(
        (s) => s.project === net.project && s.network === net.name && s.region === region,
      );
      if (!sub)
        throw invalidField(`${field}.subnetwork`, '', `Network '${net.name}' has no subnetwork in region '${region}'.`);
    }
    const networkIP = allocateInternalIp(state, sub, `${field}.networkIP`, nic.networkIP);
    const acs = list(nic.accessConfigs);
    if (acs.length > 1)
      throw invalidField(`${field}.accessConfigs`, '', 'At most one access config per network interface.');
    const out: Json = {
      kind: 'compute#networkInterface',
      network: selfLink(networkPath(netProject, netName)),
      subnetwork: selfLink(subnetworkPath(sub.project, sub.region, sub.name)),
      networkIP,
      name: `nic${i}`,
      fingerprint: fingerprint([networkIP, i]),
      stackType: 'IPV4_ONLY',
    };
    if (acs.length > 0) {
      const ac = obj(acs[0]);
      out.accessConfigs = [
        {
          kind: 'compute#accessConfig',
          type: 'ONE_TO_ONE_NAT',
          name: typeof ac.name === 'string' && ac.name !== '' ? ac.name : 'External NAT',
          networkTier: typeof ac.networkTier === 'string' ? ac.networkTier : 'PREMIUM',
          ...(typeof ac.natIP === 'string' && ac.natIP !== '' ? { natIP: ac.natIP } : {}),
        },
      ];
    }
    return out;
  });
}
