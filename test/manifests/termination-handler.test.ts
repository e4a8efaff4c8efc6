// manifests/termination-handler: the DaemonSet, its ServiceAccount and the MachineHealthCheck the
// machine-api-operator ships for spot/preemption reclaims, checked against the operator's own values, the
// binary's flag parser, the local control plane's CRD schemas, and the API calls the handler really makes.
import { expect } from 'chai';
import { join } from 'node:path';
import { buildProgram } from '../../cmd/termination-handler.js';
import {
  createKubeClient,
  loadKubeConfig,
  MachineHealthChecks,
  Namespaces,
  Nodes,
  nullLogger,
  RealClock,
  runTerminationHandler,
  type KubeObject,
} from '../../lib/index.js';
import type { RecordedRequest } from '../../sim/apiserver/index.js';
import { startTestEnv } from '../../sim/kit/index.js';
import { maoArgs } from '../cmd/mao-args.js';
import { readManifest, repo, type ManifestDoc } from './manifest-files.js';

const dir = join(repo, 'manifests', 'termination-handler');
const only = (file: string, kind: string): ManifestDoc => {
  const docs = readManifest(join(dir, file)).filter((d) => d.kind === kind);
  expect(docs, `${file}: one ${kind}`).to.have.length(1);
  return docs[0]!;
};

interface PodSpec {
  priorityClassName: string;
  nodeSelector: Record<string, string>;
  serviceAccountName: string;
  automountServiceAccountToken: boolean;
  hostNetwork: boolean;
  tolerations: Array<Record<string, string>>;
  volumes: Array<{ name: string; hostPath?: { path: string } }>;
  containers: Array<{
    name: string;
    command: string[];
    args: string[];
    env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
    volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  }>;
}

describe('manifests/termination-handler', () => {
  const ds = only('daemonset.yaml', 'DaemonSet') as ManifestDoc & {
    spec: {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: PodSpec };
    };
  };
  const pod = ds.spec.template.spec;
  const container = pod.containers[0]!;

  it("is the operator's DaemonSet: name, labels, selector, interruptible Linux nodes, every NoSchedule taint tolerated, host network", () => {
    expect(ds.metadata).to.deep.include({
      name: 'machine-api-termination-handler',
      namespace: 'openshift-machine-api',
      labels: { api: 'clusterapi', 'k8s-app': 'termination-handler' },
    });
    expect(ds.spec.selector.matchLabels).to.deep.equal(ds.spec.template.metadata.labels);
    expect(ds.spec.template.metadata.annotations['openshift.io/required-scc']).to.equal(
      'machine-api-termination-handler',
    );
    expect(pod.nodeSelector).to.deep.equal({
      'machine.openshift.io/interruptible-instance': '',
      'kubernetes.io/os': 'linux',
    });
    expect(pod.tolerations).to.deep.equal([{ operator: 'Exists', effect: 'NoSchedule' }]);
    expect(pod).to.include({
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      serviceAccountName: 'machine-api-termination-handler',
      automountServiceAccountToken: false,
    });
  });

  it("runs the handler with the operator's arguments, which parse with the binary's own flags", () => {
    expect(container.command, 'the command the image links to image/launch').to.deep.equal(['/termination-handler']);
    expect(container.args).to.deep.equal(maoArgs.terminationHandler('$(NODE_NAME)'));
    const o = buildProgram({})
      .exitOverride()
      .parse(container.args, { from: 'user' })
      .opts<{ nodeName: string; pollIntervalSeconds: number; v: number; namespace: string }>();
    expect(o).to.include({
      nodeName: '$(NODE_NAME)',
      pollIntervalSeconds: 5,
      v: 3,
      namespace: 'openshift-machine-api',
    });
  });

  it("passes the Node name from the downward API and the kubelet's credentials from the host, read-only", () => {
    expect(container.env).to.deep.include({
      name: 'NODE_NAME',
      valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } },
    });
    expect(container.env).to.deep.include({ name: 'KUBECONFIG', value: '/var/lib/kubelet/kubeconfig' });
    expect(pod.volumes.map((v) => v.hostPath?.path)).to.deep.equal([
      '/var/lib/kubelet/kubeconfig',
      '/var/lib/kubelet/pki',
    ]);
    for (const m of container.volumeMounts) expect(m.readOnly, m.name).to.equal(true);
    expect(
      container.env.map((e) => e.name),
      'production reaches the real metadata address',
    ).to.not.include.members(['AWS_EC2_METADATA_SERVICE_ENDPOINT', 'GCE_METADATA_HOST']);
  });

  it('has a ServiceAccount without a mounted token and without roles, as the operator ships it', () => {
    const sa = only('00-serviceaccount.yaml', 'ServiceAccount');
    expect(sa.metadata).to.include({ name: 'machine-api-termination-handler', namespace: 'openshift-machine-api' });
    expect(sa.automountServiceAccountToken).to.equal(false);
  });

  it("ships the operator's MachineHealthCheck, which the local control plane accepts", async function () {
    this.timeout(30_000);
    const mhc = only('machinehealthcheck.yaml', 'MachineHealthCheck');
    expect(mhc.metadata).to.include({ name: 'machine-api-termination-handler', namespace: 'openshift-machine-api' });
    expect(mhc.spec).to.deep.equal({
      selector: { matchLabels: { 'machine.openshift.io/interruptible-instance': '' } },
      maxUnhealthy: '100%',
      nodeStartupTimeout: '0',
      unhealthyConditions: [{ type: 'Terminating', status: 'True', timeout: '0s' }],
    });
    const env = await startTestEnv();
    try {
      await env.client.create(Namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'openshift-machine-api' },
      });
      const { file: _file, ...obj } = mhc;
      const created = await env.client.create(MachineHealthChecks, obj as unknown as KubeObject);
      expect((created as { spec?: unknown }).spec).to.deep.include({ nodeStartupTimeout: '0', maxUnhealthy: '100%' });
    } finally {
      await env.stop();
    }
  });

  it("needs only what the Node authorizer grants a node for itself: get its Node, patch its Node's status", async function () {
    this.timeout(30_000);
    const requests: RecordedRequest[] = [];
    const env = await startTestEnv({ controlPlane: { onRequest: (r) => requests.push(r) } });
    const client = createKubeClient({
      kubeConfig: loadKubeConfig({ yaml: env.controlPlane.kubeconfig }),
      userAgent: 'termination-handler',
    });
    try {
      await env.client.create(Nodes, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'spot-1' },
        spec: { providerID: 'aws:///us-east-1a/i-0abc' },
      });
      const outcome = await runTerminationHandler(
        {
          client,
          nodeName: 'spot-1',
          sources: { aws: () => ({ cloud: 'aws', check: async () => ({ action: 'terminate' }) }) },
          pollIntervalMs: 1000,
          clock: new RealClock(),
          logger: nullLogger(),
        },
        new AbortController().signal,
      );
      expect(outcome).to.equal('marked');
      const used = new Set(
        requests
          .filter((r) => r.userAgent?.startsWith('termination-handler'))
          .map((r) => `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`),
      );
      expect([...used].sort()).to.deep.equal(['get nodes', 'patch nodes/status']);
    } finally {
      client.close();
      await env.stop();
    }
  });
});
