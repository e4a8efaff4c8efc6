// The admission webhooks of the machineset-controller, wired from its flags: the platform plug-in chosen by the
// cluster's Infrastructure, Secret reads for the credentials warning, the HTTPS server as a manager runnable
// and its metrics on the manager's /metrics. As in the reference, webhooks cannot run without the
// Infrastructure (it gives the platform and the cluster label) or without a serving certificate.
import {
  admissionServerRunnable,
  createAdmissionRequestHandler,
  readCertificatePair,
  Secrets,
  type AdmissionInfrastructure,
  type MachineAdmission,
  type Manager,
  type SecretReader,
  type TlsServerSettings,
} from '../../lib/index.js';
// The clouds' descriptors, not the providers' index: that pulls in the cloud SDKs, which this binary never calls
// and whose memory its small heap cannot spare.
import { cloudProviders } from './cloud-providers.js';
import { getInfrastructureStatus, type InfrastructureStatus } from './infrastructure.js';
import type { Wiring } from './manager-from-flags.js';
import type { WebhookFlags } from './webhook-flags.js';

export const machineAdmissionPlugins: readonly MachineAdmission[] = cloudProviders.map((p) => p.admission);

export class WebhookStartError extends Error {
  override readonly name = 'WebhookStartError';
}

/** The architecture default instance types are chosen for: this binary's own, as the reference does. */
export const controlPlaneArchitecture = (arch: string = process.arch): 'amd64' | 'arm64' =>
  arch === 'arm64' ? 'arm64' : 'amd64';

export function admissionInfrastructure(
  status: InfrastructureStatus,
  arch = controlPlaneArchitecture(),
): AdmissionInfrastructure {
  return {
    clusterId: status.infrastructureName ?? '',
    platformType: status.platformStatus?.type ?? '',
    platformStatus: status.platformStatus ?? {},
    architecture: arch,
  };
}

export interface ServeWebhooksOptions {
  webhook: WebhookFlags;
  tls: TlsServerSettings;
  featureGates: Record<string, boolean>;
}

export async function serveAdmissionWebhooks(manager: Manager, wiring: Wiring, o: ServeWebhooksOptions): Promise<void> {
  try {
    await readCertificatePair(o.webhook.certDir);
  } catch (err) {
    throw new WebhookStartError(
      `--webhook-cert-dir: ${(err as Error).message} (webhooks are enabled; mount the serving certificate there or pass --webhook-enabled=false)`,
    );
  }
  let status: InfrastructureStatus;
  try {
    status = await getInfrastructureStatus(wiring.client);
  } catch (err) {
    throw new WebhookStartError(
      `admission webhooks need the Infrastructure "cluster" (config.openshift.io/v1) for the platform and the cluster name: ${(err as Error).message}`,
    );
  }
  const infrastructure = admissionInfrastructure(status);
  if (!machineAdmissionPlugins.some((p) => p.platform === infrastructure.platformType))
    wiring.logger.info('no admission rules for this platform; providerSpecs are admitted unchecked', {
      platform: infrastructure.platformType,
    });
  const secrets: SecretReader = { get: (key, opts) => wiring.client.get(Secrets, key, opts) };
  const handler = createAdmissionRequestHandler({
    infrastructure,
    plugins: machineAdmissionPlugins,
    secrets,
    featureGates: o.featureGates,
    metrics: manager.metrics,
    logger: wiring.logger,
  });
  manager.add(
    admissionServerRunnable({
      port: o.webhook.port,
      host: o.webhook.host || undefined,
      certDir: o.webhook.certDir,
      tls: o.tls,
      handler,
      logger: wiring.logger,
    }),
  );
}
