// GCP as the binaries see it without its SDK: the webhooks' providerSpec rules and the preemption notice reader.
// Only light modules are imported here; the actuator and the Compute client are the provider binary's alone.
import type { CloudProviderDescriptor } from '../../lib/index.js';
import { GCP_PLATFORM, gcpMachineAdmission } from './admission.js';
import { metadataBaseOf, PreemptionNoticeSource } from './preemption-notice.js';

/** The address the reference GCP termination handler polls. */
export const DEFAULT_GCE_METADATA_HOST = '169.254.169.254';

export const gcpProvider: CloudProviderDescriptor = {
  name: 'gcp',
  platformType: GCP_PLATFORM,
  providerIdScheme: 'gce',
  component: 'machine-api-provider-gcp',
  admission: gcpMachineAdmission,
  termination: {
    endpointEnv: 'GCE_METADATA_HOST',
    defaultEndpoint: DEFAULT_GCE_METADATA_HOST,
    checkEndpoint(host) {
      metadataBaseOf(host);
      return host;
    },
    // Held open for up to one poll interval: the notice is seen the moment it comes, and there is still an
    // answer (a sign of life in the logs at -v=2) every interval.
    source: (host, pollIntervalSeconds) => new PreemptionNoticeSource({ host, waitForChangeSec: pollIntervalSeconds }),
  },
};
