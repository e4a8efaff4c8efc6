// What the binaries need to know of one cloud to serve it, in one object per cloud: the admission webhooks pick its
// providerSpec rules by platform, the termination handler picks its reclaim-notice reader by providerID scheme, and
// npm start, the benchmark and the provider binary name it the same way. A descriptor module loads no cloud SDK:
// the webhook and termination-handler binaries read every cloud's descriptor and call none of the clouds.
import type { MachineAdmission } from '../admission/machine-admission.js';
import type { TerminationNoticeSource } from '../termination/termination-notice.js';

/** Where an instance of the cloud reads its reclaim notice, and the reader that follows it. */
export interface TerminationNoticeDescriptor {
  /** The variable that overrides the metadata service's address, as the cloud's own libraries read it. */
  readonly endpointEnv: string;
  /** The address every instance of the cloud reaches its metadata service at. */
  readonly defaultEndpoint: string;
  /** Throws an Error naming the form the endpoint must have; returns it unchanged when it is usable. */
  checkEndpoint(endpoint: string): string;
  /** A reader of the notice at `endpoint`, asked again every poll interval. */
  source(endpoint: string, pollIntervalSeconds: number): TerminationNoticeSource;
}

export interface CloudProviderDescriptor {
  /** The cloud's name in this project: `npm start --provider`, the folders, the manifests. */
  readonly name: string;
  /** The Infrastructure's platform type on this cloud ("AWS", "GCP", "IBMCloud"). */
  readonly platformType: string;
  /** The scheme of its Nodes' providerIDs ("aws", "gce", "ibm"). */
  readonly providerIdScheme: string;
  /** The provider binary, as its container and its command line name it. */
  readonly component: string;
  /** Its providerSpec's defaults and validation, served by the Machine and MachineSet webhooks. */
  readonly admission: MachineAdmission;
  /** Present when the cloud announces the reclaim of spot or preemptible instances. */
  readonly termination?: TerminationNoticeDescriptor;
}
