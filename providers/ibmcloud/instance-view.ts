// What the actuator reads of a looked-up instance, and nothing else. The finder holds a listing of every
// instance of the VPC for a resync; the VPC's full instance (volume attachments, every network interface,
// vCPU and memory, placement, links...) would cost the provider kilobytes of heap each.
import type { VpcInstance } from './vpc-types.js';

/**
 * The fields the actuator reads of an instance: its identity (id, CRN for tagging, name), status and creation
 * time (a stuck boot), the primary address update() records, and the references the type requires.
 */
export function slimInstance(i: VpcInstance): VpcInstance {
  const address = i.primary_network_interface?.primary_ip?.address;
  const out: VpcInstance = {
    id: i.id,
    crn: i.crn,
    name: i.name,
    status: i.status,
    created_at: i.created_at,
    profile: { name: i.profile.name },
    zone: { name: i.zone.name },
    vpc: { id: i.vpc.id },
    resource_group: { id: i.resource_group.id },
  };
  if (i.primary_network_interface)
    out.primary_network_interface = {
      id: i.primary_network_interface.id,
      ...(address !== undefined ? { primary_ip: { address } } : {}),
    };
  // A copy with strings of its own: decoded strings may be slices of the whole reply.
  return JSON.parse(JSON.stringify(out)) as VpcInstance;
}
