// Where the termination handler finds each cloud's instance metadata service: the override the cloud's own
// libraries read (the AWS SDKs' AWS_EC2_METADATA_SERVICE_ENDPOINT, Google's GCE_METADATA_HOST), else the
// link-local address every instance reaches on its cloud. Local runs and tests always set them, to an emulator.
import type { CloudProviderDescriptor, TerminationNoticeSource, TerminationNoticeSources } from '../../lib/index.js';

/** The metadata endpoint of every cloud that announces reclaims, by providerID scheme. */
export type MetadataEndpoints = Readonly<Record<string, string>>;

/** Reads and checks the overrides; a malformed one is an error naming the variable and the form it needs. */
export function metadataEndpointsFromEnv(
  env: NodeJS.ProcessEnv,
  providers: readonly CloudProviderDescriptor[],
): MetadataEndpoints {
  const endpoints: Record<string, string> = {};
  for (const { providerIdScheme, termination } of providers) {
    if (!termination) continue;
    const value = env[termination.endpointEnv] || termination.defaultEndpoint;
    try {
      endpoints[providerIdScheme] = termination.checkEndpoint(value);
    } catch (err) {
      throw new Error(`${termination.endpointEnv} ${(err as Error).message}`, { cause: err });
    }
  }
  return endpoints;
}

/** One notice source per providerID scheme whose cloud announces reclaims, reading the endpoint found for it. */
export function noticeSources(
  providers: readonly CloudProviderDescriptor[],
  endpoints: MetadataEndpoints,
  pollIntervalSeconds: number,
): TerminationNoticeSources {
  const sources: Record<string, () => TerminationNoticeSource> = {};
  for (const { providerIdScheme, termination } of providers) {
    const endpoint = endpoints[providerIdScheme];
    if (termination && endpoint !== undefined)
      sources[providerIdScheme] = () => termination.source(endpoint, pollIntervalSeconds);
  }
  return sources;
}
