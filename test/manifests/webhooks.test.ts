// manifests/webhooks: the Service and the two WebhookConfigurations the machine-api-operator creates for the
// machineset-controller's admission webhooks, checked against the paths and names the server answers on and
// against the Deployment that must expose the port and mount the certificate the Service's annotation names.
import { expect } from 'chai';
import { join } from 'node:path';
import {
  admissionWebhookPaths,
  DefaultWebhookCertDir,
  DefaultWebhookPort,
  MachineMutatingWebhookName,
  MachineMutatingWebhookPath,
  MachineSetMutatingWebhookName,
  MachineSetMutatingWebhookPath,
  MachineSetValidatingWebhookName,
  MachineSetValidatingWebhookPath,
  MachineValidatingWebhookName,
  MachineValidatingWebhookPath,
} from '../../lib/index.js';
import { machineSetControllerBinary } from '../../cmd/machineset-controller.js';
import { readWebhookFlags } from '../../cmd/internal/index.js';
import { parseArgs, programOf } from '../../cmd/local/local-binary.js';
import { readManifest, readManifestDir, repo, type ManifestDoc } from './manifest-files.js';

interface Webhook {
  name: string;
  admissionReviewVersions: string[];
  failurePolicy: string;
  sideEffects: string;
  clientConfig: { service: { namespace: string; name: string; path: string; port: number } };
  rules: Array<{ apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[] }>;
}

const docs = readManifestDir('webhooks');
const byKind = (kind: string): ManifestDoc => {
  const d = docs.find((x) => x.kind === kind);
  if (!d) throw new Error(`manifests/webhooks has no ${kind}`);
  return d;
};
const webhooksOf = (kind: string) => byKind(kind).webhooks as Webhook[];

describe('manifests/webhooks', () => {
  it('has the Service machine-api-operator-webhook: 443 to the webhook-server port, with the service-CA serving-cert annotation', () => {
    const svc = byKind('Service');
    expect(svc.metadata).to.include({ name: 'machine-api-operator-webhook', namespace: 'openshift-machine-api' });
    expect(svc.metadata?.annotations?.['service.beta.openshift.io/serving-cert-secret-name']).to.equal(
      'machine-api-operator-webhook-cert',
    );
    const spec = svc.spec as {
      ports: Array<{ port: number; targetPort: string; protocol: string }>;
      selector: Record<string, string>;
    };
    expect(spec.ports).to.deep.equal([{ name: 'https', port: 443, protocol: 'TCP', targetPort: 'webhook-server' }]);
    expect(spec.selector).to.deep.equal({ 'k8s-app': 'controller', api: 'clusterapi' });
  });

  for (const [kind, expected] of [
    [
      'MutatingWebhookConfiguration',
      [
        [MachineMutatingWebhookName, MachineMutatingWebhookPath, 'machines'],
        [MachineSetMutatingWebhookName, MachineSetMutatingWebhookPath, 'machinesets'],
      ],
    ],
    [
      'ValidatingWebhookConfiguration',
      [
        [MachineValidatingWebhookName, MachineValidatingWebhookPath, 'machines'],
        [MachineSetValidatingWebhookName, MachineSetValidatingWebhookPath, 'machinesets'],
      ],
    ],
  ] as const) {
    it(`has the ${kind} machine-api with the operator's two webhooks, Ignore, None, v1 and the CA-bundle injection`, () => {
      const config = byKind(kind);
      expect(config.apiVersion).to.equal('admissionregistration.k8s.io/v1');
      expect(config.metadata?.name).to.equal('machine-api');
      expect(config.metadata?.annotations?.['service.beta.openshift.io/inject-cabundle']).to.equal('true');
      const hooks = webhooksOf(kind);
      expect(hooks.map((h) => [h.name, h.clientConfig.service.path, h.rules[0]!.resources[0]])).to.deep.equal(expected);
      const operations = kind === 'MutatingWebhookConfiguration' ? ['CREATE'] : ['CREATE', 'UPDATE'];
      for (const h of hooks) {
        expect(h.failurePolicy, h.name).to.equal('Ignore');
        expect(h.sideEffects, h.name).to.equal('None');
        expect(h.admissionReviewVersions, h.name).to.deep.equal(['v1']);
        expect(h.clientConfig.service).to.include({
          namespace: 'openshift-machine-api',
          name: 'machine-api-operator-webhook',
          port: 443,
        });
        expect(h.rules).to.have.length(1);
        expect(h.rules[0]).to.deep.include({
          apiGroups: ['machine.openshift.io'],
          apiVersions: ['v1beta1'],
          operations,
        });
      }
    });
  }

  it('points every webhook at a path the server answers on', () => {
    const paths = [...webhooksOf('MutatingWebhookConfiguration'), ...webhooksOf('ValidatingWebhookConfiguration')].map(
      (h) => h.clientConfig.service.path,
    );
    expect([...paths].sort()).to.deep.equal([...admissionWebhookPaths].sort());
  });

  for (const cloud of ['aws', 'gcp', 'ibmcloud']) {
    it(`${cloud}: the machineset-controller container exposes webhook-server on its --webhook-port and mounts the Service's certificate Secret at its --webhook-cert-dir`, () => {
      const deployment = readManifest(join(repo, 'manifests', 'providers', cloud, 'deployment.yaml')).find(
        (d) => d.kind === 'Deployment',
      )!;
      const pod = (
        deployment.spec as {
          template: {
            spec: {
              containers: Array<Record<string, unknown>>;
              volumes?: Array<{ name: string; secret?: { secretName: string } }>;
            };
          };
        }
      ).template.spec;
      const container = pod.containers.find((c) => c.name === 'machineset-controller') as {
        args?: string[];
        ports: Array<{ name: string; containerPort: number }>;
        volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
      };
      const flags = readWebhookFlags(parseArgs(programOf(machineSetControllerBinary, {}), container.args ?? []).opts());
      expect(flags).to.deep.equal({
        enabled: true,
        port: DefaultWebhookPort,
        host: '',
        certDir: DefaultWebhookCertDir,
      });
      expect(container.ports).to.deep.include({ name: 'webhook-server', containerPort: flags.port });
      const mount = container.volumeMounts?.find((m) => m.mountPath === flags.certDir);
      expect(mount?.readOnly).to.equal(true);
      const volume = pod.volumes?.find((v) => v.name === mount?.name);
      expect(volume?.secret?.secretName).to.equal(
        byKind('Service').metadata?.annotations?.['service.beta.openshift.io/serving-cert-secret-name'],
      );
    });
  }

  it('grants the machineset-controller what its webhooks read: the Infrastructure and Secrets (get only)', () => {
    const roles = readManifestDir('rbac').filter(
      (d) => d.metadata?.annotations?.['machine-api-ts.openshift.io/binary'] === 'machineset-controller',
    );
    const rules = roles.flatMap((r) =>
      (r.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>).map((rule) => ({
        kind: r.kind,
        ...rule,
      })),
    );
    expect(rules).to.deep.include({
      kind: 'ClusterRole',
      apiGroups: ['config.openshift.io'],
      resources: ['infrastructures'],
      verbs: ['get'],
    });
    expect(rules).to.deep.include({ kind: 'Role', apiGroups: [''], resources: ['secrets'], verbs: ['get'] });
  });
});
