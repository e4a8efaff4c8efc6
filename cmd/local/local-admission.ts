// Admission in the local environment, as a cluster has it: the Infrastructure "cluster" the installer writes
// (the webhooks read the platform and the cluster name from it), a serving certificate for the
// machineset-controller's webhook server (the service CA's job on a cluster), and the operator's
// machine-api WebhookConfigurations with that certificate as their caBundle, whose Service the local control
// plane resolves to the server's loopback port.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { defineResource, isAlreadyExists, isNotFound, type KubeClient, type KubeObject } from '../../lib/index.js';
import { generateServingCert } from '../../sim/apiserver/index.js';
import { Infrastructures, type InfrastructureStatus } from '../internal/index.js';

/** The webhook Service of the operator's manifests, as the control plane's resolver keys it. */
export const WEBHOOK_SERVICE = 'openshift-machine-api/machine-api-operator-webhook';
const WEBHOOK_DNS_NAME = 'machine-api-operator-webhook.openshift-machine-api.svc';

const webhookConfigurationResources = {
  MutatingWebhookConfiguration: defineResource<KubeObject>({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
  }),
  ValidatingWebhookConfiguration: defineResource<KubeObject>({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  }),
} as const;

export interface LocalServingCert {
  /** Holds tls.crt and tls.key, as the operator mounts the serving-cert Secret. */
  dir: string;
  /** The certificate (self-signed, so also the CA a client trusts). */
  certPem: string;
}

/** The webhook server's certificate, made once per state directory and kept across restarts. */
export function localServingCert(stateDir: string): LocalServingCert {
  const dir = join(stateDir, 'webhook-tls');
  const crt = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  if (!existsSync(crt) || !existsSync(key)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const cert = generateServingCert('machine-api-operator-webhook', Date.now(), { dnsNames: [WEBHOOK_DNS_NAME] });
    writeFileSync(key, cert.keyPem, { mode: 0o600 });
    writeFileSync(crt, cert.certPem, { mode: 0o600 });
  }
  return { dir, certPem: readFileSync(crt, 'utf8') };
}

/** Creates the Infrastructure "cluster" for the provider unless one exists (a user's edit is kept). */
export async function ensureInfrastructure(
  client: KubeClient,
  clusterName: string,
  platformStatus: NonNullable<InfrastructureStatus['platformStatus']>,
): Promise<void> {
  try {
    await client.create(Infrastructures, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Infrastructure',
      metadata: { name: 'cluster' },
      status: { infrastructureName: clusterName, platform: platformStatus.type, platformStatus },
    } as KubeObject & { status: InfrastructureStatus });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/**
 * Registers the operator's WebhookConfigurations from `file` with `caBundle` on every webhook, replacing earlier
 * ones (a new state directory's certificate, or manifests changed since).
 */
export async function registerWebhookConfigurations(
  client: KubeClient,
  file: string,
  caPem: string,
): Promise<string[]> {
  const caBundle = Buffer.from(caPem, 'utf8').toString('base64');
  const names: string[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const object = doc.toJS() as (KubeObject & { webhooks?: Array<{ clientConfig?: Record<string, unknown> }> }) | null;
    if (!object) continue;
    const resource = webhookConfigurationResources[object.kind as keyof typeof webhookConfigurationResources];
    if (!resource) continue;
    for (const w of object.webhooks ?? []) w.clientConfig = { ...w.clientConfig, caBundle };
    const name = object.metadata.name ?? '';
    try {
      const existing = await client.get(resource, { name });
      await client.update(resource, {
        ...object,
        metadata: { ...object.metadata, resourceVersion: existing.metadata.resourceVersion },
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await client.create(resource, object);
    }
    names.push(`${object.kind ?? ''}/${name}`);
  }
  return names;
}

export class WebhookServerNotListeningError extends Error {
  override readonly name = 'WebhookServerNotListeningError';
}

/** Resolves once something accepts connections on 127.0.0.1:port (the webhook server has started). */
export async function waitForListening(port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline)
      throw new WebhookServerNotListeningError(
        `the admission webhook server did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
