// GCP in the local environment: the GCE emulator (Compute REST/JSON, persisted world seeded for the samples'
// project and cluster) and the machine-api-provider-gcp binary pointed at it with --gcp-endpoint.
import { DEFAULT_CLUSTER_ID, DEFAULT_PROJECT, startGceEmulator } from './index.js';
import { totalActionCounts, type LocalSimulation } from '../kit/local-cloud.js';

export const gcpLocalSimulation: LocalSimulation = {
  samplesDir: 'gcp',
  cloudArgs: (cloud) => [`--gcp-endpoint=${cloud.endpoint}`],
  infrastructure: (cloud) => ({
    clusterName: DEFAULT_CLUSTER_ID,
    platformStatus: { type: 'GCP', gcp: { projectID: DEFAULT_PROJECT, region: cloud.region } },
  }),
  async startEmulator(s) {
    // The samples (manifests/samples/gcp) name the default world's project, network and subnet, which the
    // emulator seeds for this cluster id.
    // Compute calls must carry a token or self-signed JWT of a key the project has (the sample Secret's by
    // default), as on GCE: the provider signs its calls to a loopback endpoint with the Secret's key.
    const emu = await startGceEmulator({
      requireAuth: true,
      project: DEFAULT_PROJECT,
      clusterId: DEFAULT_CLUSTER_ID,
      dataDir: s.dataDir,
      port: s.port,
      bootDelayMs: s.bootDelayMs,
      stopDelayMs: s.terminateDelayMs,
      deleteDelayMs: s.terminateDelayMs,
      knobs: s.latencyMs > 0 ? { latency: [{ latency: s.latencyMs }] } : undefined,
      logger: s.logger,
    });
    return {
      endpoint: emu.endpoint,
      region: 'us-central1',
      extraEndpoints: { project: DEFAULT_PROJECT },
      instanceView: () => emu.instanceView(),
      adminRoutes: emu.adminRoutes,
      actionCounts: () => totalActionCounts(emu.knobs.allCounts()),
      metadataEnv: async (providerID) => {
        const { name, where } = gceInstanceOf(providerID);
        return name && emu.instance(name, where)
          ? { GCE_METADATA_HOST: await emu.metadataHost(name, where) }
          : undefined;
      },
      reclaim: (providerID) => {
        const { name, where } = gceInstanceOf(providerID);
        emu.preempt(name, where);
      },
      stop: () => emu.stop(),
    };
  },
};

/** gce://<project>/<zone>/<name> → the name and where it is. */
function gceInstanceOf(providerID: string): { name: string; where: { project?: string; zone?: string } } {
  const [project, zone, name = ''] = providerID.replace(/^gce:\/\//, '').split('/');
  return { name, where: { project, zone } };
}
