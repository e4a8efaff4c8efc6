// AWS as the binaries see it without its SDK: the webhooks' providerSpec rules and the Spot interruption reader.
// Only light modules are imported here; the actuator and the EC2 client are the provider binary's alone.
import type { CloudProviderDescriptor } from '../../lib/index.js';
import { AWS_PLATFORM, awsMachineAdmission } from './admission.js';
import { SpotInstanceActionSource } from './spot-instance-action.js';

/** IMDS on every EC2 instance; the reference reaches it through the AWS SDK's default. */
export const DEFAULT_AWS_METADATA_ENDPOINT = 'http://169.254.169.254';

export const awsProvider: CloudProviderDescriptor = {
  name: 'aws',
  platformType: AWS_PLATFORM,
  providerIdScheme: 'aws',
  component: 'machine-api-provider-aws',
  admission: awsMachineAdmission,
  termination: {
    endpointEnv: 'AWS_EC2_METADATA_SERVICE_ENDPOINT',
    defaultEndpoint: DEFAULT_AWS_METADATA_ENDPOINT,
    checkEndpoint(endpoint) {
      let url: URL | undefined;
      try {
        url = new URL(endpoint);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
        throw new Error(
          `must be an http(s) URL such as ${DEFAULT_AWS_METADATA_ENDPOINT}, got ${JSON.stringify(endpoint)}`,
        );
      return endpoint;
    },
    source: (endpoint) => new SpotInstanceActionSource({ endpoint }),
  },
};
