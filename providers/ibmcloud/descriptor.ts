// IBM Cloud as the binaries see it without its SDK: the webhooks' providerSpec rules. IBM Cloud VPC announces no
// reclaim of an instance, so its Nodes have no termination notice to follow.
import type { CloudProviderDescriptor } from '../../lib/index.js';
import { IBMCLOUD_PLATFORM, ibmCloudMachineAdmission } from './admission.js';

export const ibmCloudProvider: CloudProviderDescriptor = {
  name: 'ibmcloud',
  platformType: IBMCLOUD_PLATFORM,
  providerIdScheme: 'ibm',
  component: 'machine-api-provider-ibmcloud',
  admission: ibmCloudMachineAdmission,
};
