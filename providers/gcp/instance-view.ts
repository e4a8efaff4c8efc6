// What the actuator reads of a listed instance, and nothing else. The existence finder holds a listing of
// every instance of the cluster in a zone for a resync; GCE's full Instance (disks, metadata items, service
// accounts, fingerprints, shielded and scheduling settings...) would cost the provider kilobytes of heap each.
import type { Instance } from './compute-api.js';

/**
 * The fields the actuator reads of an instance it looked up: its name and status, its ownership labels, the
 * addresses update() records (the first interface's internal IP and NAT IPs), and whether it is Spot or
 * preemptible.
 */
export function slimInstance(i: Instance): Instance {
  const out: Instance = {};
  if (i.name != null) out.name = i.name;
  if (i.status != null) out.status = i.status;
  if (i.labels != null) out.labels = { ...i.labels };
  const nic = i.networkInterfaces?.[0];
  if (nic) {
    const accessConfigs = nic.accessConfigs?.flatMap((a) => (a.natIP ? [{ natIP: a.natIP }] : []));
    out.networkInterfaces = [
      { ...(nic.networkIP ? { networkIP: nic.networkIP } : {}), ...(accessConfigs ? { accessConfigs } : {}) },
    ];
  }
  if (i.scheduling) {
    const { provisioningModel, preemptible } = i.scheduling;
    out.scheduling = {
      ...(provisioningModel != null ? { provisioningModel } : {}),
      ...(preemptible != null ? { preemptible } : {}),
    };
  }
  // A copy with strings of its own: the decoder's strings may be slices of the whole reply, which would keep
  // every page's text alive for as long as one name is held.
  return JSON.parse(JSON.stringify(out)) as Instance;
}
