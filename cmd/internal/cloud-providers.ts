// The clouds these binaries serve: one line per cloud. The webhooks, the termination handler, npm start and the
// benchmark read this list; each descriptor module loads no cloud SDK, so neither does a binary that only reads it.
import type { CloudProviderDescriptor } from '../../lib/index.js';
import { awsProvider } from '../../providers/aws/descriptor.js';
import { gcpProvider } from '../../providers/gcp/descriptor.js';
import { ibmCloudProvider } from '../../providers/ibmcloud/descriptor.js';

export const cloudProviders: readonly CloudProviderDescriptor[] = [awsProvider, gcpProvider, ibmCloudProvider];

export class UnknownCloudProviderError extends Error {
  override readonly name = 'UnknownCloudProviderError';
}

/** The descriptor named `name`; an error listing the known ones otherwise. */
export function cloudProvider(name: string): CloudProviderDescriptor {
  const found = cloudProviders.find((p) => p.name === name);
  if (!found)
    throw new UnknownCloudProviderError(
      `--provider must be one of ${cloudProviders.map((p) => p.name).join(', ')}, got ${JSON.stringify(name)}`,
    );
  return found;
}
