// The cluster's Infrastructure object (config.openshift.io/v1, name "cluster"): what the installer recorded
// about the platform, read by several binaries at start.
import { defineResource, type KubeClient, type KubeObject } from '../../lib/index.js';

export interface InfrastructureStatus {
  /** The cluster ID: the cluster label's value and the prefix of cloud resource names. */
  infrastructureName?: string;
  controlPlaneTopology?: string;
  platformStatus?: { type?: string } & Record<string, unknown>;
}

export const Infrastructures = defineResource<KubeObject & { status?: InfrastructureStatus }>({
  group: 'config.openshift.io',
  version: 'v1',
  plural: 'infrastructures',
  kind: 'Infrastructure',
  namespaced: false,
});

/** The status of the Infrastructure "cluster"; throws the client's error when it cannot be read. */
export async function getInfrastructureStatus(client: KubeClient, timeoutMs = 10_000): Promise<InfrastructureStatus> {
  const infra = await client.get(Infrastructures, { name: 'cluster' }, { signal: AbortSignal.timeout(timeoutMs) });
  return infra.status ?? {};
}
