// manifests/network-policies: default deny in openshift-machine-api, then each port the machine-api-controllers
// pod serves opened to its one peer (metrics to Prometheus, the webhook to kube-apiserver, health to the kubelet)
// and each connection it opens allowed (kube-apiserver, DNS, the cloud over HTTPS). Evaluated as a network plugin
// would, against every port every Deployment in manifests/ declares and the Services in front of them.
import { expect } from 'chai';
import {
  controllersOf,
  deploymentClouds,
  readDeployment,
  type Container,
  type Deployment,
} from './deployment-manifest.js';
import { readManifestDir } from './manifest-files.js';
import { allowed, selects, type Endpoint, type NetworkPolicy } from './network-policy-evaluator.js';

const NAMESPACE = 'openshift-machine-api';
/** Ports scanned for anything opened by mistake: every port the binaries or the operator use is below this. */
const SCANNED_PORTS = 10_000;
const docs = readManifestDir('network-policies');
const policies = docs.filter((d) => d.kind === 'NetworkPolicy') as unknown as NetworkPolicy[];

const nsLabels = (name: string, extra: Record<string, string> = {}) => ({
  'kubernetes.io/metadata.name': name,
  ...extra,
});

/** Who connects, as the network plugin sees them. */
const peers = {
  prometheus: {
    namespace: 'openshift-monitoring',
    namespaceLabels: nsLabels('openshift-monitoring'),
    labels: { 'app.kubernetes.io/name': 'prometheus', prometheus: 'k8s' },
  },
  // kube-apiserver and the kubelet run on the hosts' network, shown to policies as this namespace group.
  hostNetwork: {
    namespace: '',
    namespaceLabels: { 'policy-group.network.openshift.io/host-network': '' },
    labels: {},
  },
  neighbour: {
    namespace: NAMESPACE,
    namespaceLabels: nsLabels(NAMESPACE),
    labels: { 'k8s-app': 'cluster-autoscaler-operator' },
  },
  elsewhere: { namespace: 'default', namespaceLabels: nsLabels('default'), labels: { app: 'curl' } },
} satisfies Record<string, Endpoint>;
type PeerName = keyof typeof peers;

const dnsPod: Endpoint = {
  namespace: 'openshift-dns',
  namespaceLabels: nsLabels('openshift-dns'),
  labels: { 'dns.operator.openshift.io/daemonset-dns': 'default' },
};
/** A cloud API endpoint outside the cluster: no namespace, no labels. */
const internet: Endpoint = { namespace: '', namespaceLabels: {}, labels: {} };

function podOf(d: Deployment): Endpoint {
  const namedPorts: Record<string, number> = {};
  for (const c of d.spec.template.spec.containers) for (const p of c.ports ?? []) namedPorts[p.name] = p.containerPort;
  return {
    namespace: d.metadata.namespace,
    namespaceLabels: nsLabels(d.metadata.namespace),
    labels: d.spec.template.metadata.labels,
    namedPorts,
  };
}

/** The one peer each kind of port serves: the webhook kube-apiserver, probes the kubelet, the sidecars Prometheus. */
function peerFor(c: Container, portName: string): PeerName {
  if (c.name.startsWith('kube-rbac-proxy-')) return 'prometheus';
  if (portName === 'webhook-server') return 'hostNetwork';
  const probed = [c.readinessProbe, c.livenessProbe, c.startupProbe].some((p) => p?.httpGet?.port === portName);
  if (probed) return 'hostNetwork';
  throw new Error(`${c.name}: port ${portName} serves no known peer; give it a NetworkPolicy and a case here`);
}

describe('manifests/network-policies', () => {
  it("are the machine-api-operator's policy names, all in openshift-machine-api with its annotations, with egress split by need", () => {
    expect(policies.map((p) => p.metadata.name).sort()).to.deep.equal([
      'allow-egress-cloud',
      'allow-egress-dns',
      'allow-egress-kubeapi',
      'allow-ingress-cluster',
      'allow-ingress-kubeapi',
      'allow-ingress-metrics',
      'default-deny',
    ]);
    for (const p of docs) {
      expect(p.apiVersion, p.metadata?.name).to.equal('networking.k8s.io/v1');
      expect(p.metadata?.namespace, p.metadata?.name).to.equal(NAMESPACE);
      expect(p.metadata?.annotations, p.metadata?.name).to.include({
        'capability.openshift.io/name': 'MachineAPI',
        'exclude.release.openshift.io/internal-openshift-hosted': 'true',
      });
    }
  });

  it('deny by default every pod of the namespace, both ways', () => {
    const deny = policies.find((p) => p.metadata.name === 'default-deny')!;
    expect(deny.spec).to.deep.equal({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const somePod: Endpoint = { ...peers.neighbour };
    for (const peer of Object.values(peers)) expect(allowed(policies, peer, somePod, 8443)).to.equal(false);
    expect(allowed(policies, somePod, internet, 443)).to.equal(false);
  });

  it('the evaluator is not trivially permissive: default-deny alone closes the webhook, no policy at all opens it', () => {
    const pod = podOf(readDeployment('aws'));
    const denyOnly = policies.filter((p) => p.metadata.name === 'default-deny');
    expect(allowed(denyOnly, peers.hostNetwork, pod, 8443)).to.equal(false);
    expect(allowed([], peers.elsewhere, pod, 8443)).to.equal(true);
  });

  it('leave the termination handler alone: it runs on the host network, where NetworkPolicy does not apply, and serves no port', () => {
    const ds = readManifestDir('termination-handler').find((x) => x.kind === 'DaemonSet') as unknown as {
      metadata: { namespace: string };
      spec: { template: { spec: { hostNetwork?: boolean; containers: Container[] } } };
    };
    expect(ds.metadata.namespace).to.equal(NAMESPACE);
    expect(ds.spec.template.spec.hostNetwork).to.equal(true);
    expect(ds.spec.template.spec.containers.flatMap((c) => c.ports ?? [])).to.deep.equal([]);
  });

  for (const cloud of deploymentClouds()) {
    describe(`${cloud}: the machine-api-controllers pod`, () => {
      const d = readDeployment(cloud);
      const pod = podOf(d);
      const served = d.spec.template.spec.containers.flatMap((c) =>
        (c.ports ?? []).map((p) => ({ container: c, port: p, peer: peerFor(c, p.name) })),
      );

      it('is selected by every allow policy', () => {
        for (const p of policies) expect(selects(p.spec.podSelector, pod.labels), p.metadata.name).to.equal(true);
      });

      for (const { container, port, peer } of served) {
        it(`${container.name}: ${port.name} (${port.containerPort}) is open to ${peer} only`, () => {
          for (const [name, endpoint] of Object.entries(peers)) {
            expect(allowed(policies, endpoint, pod, port.containerPort), `from ${name}`).to.equal(name === peer);
          }
        });
      }

      it('opens no port it does not declare, to anyone (the loopback metrics and every other port up to 10000 stay closed)', () => {
        const declared = new Map(served.map((s) => [s.port.containerPort, s.peer]));
        for (const [name, endpoint] of Object.entries(peers)) {
          const open: number[] = [];
          for (let port = 1; port <= SCANNED_PORTS; port++) if (allowed(policies, endpoint, pod, port)) open.push(port);
          const expected = [...declared].filter(([, p]) => p === name).map(([port]) => port);
          expect(open, `open to ${name}`).to.have.members(expected);
        }
        for (const c of controllersOf(d)) {
          const metrics = (c.args ?? []).find((a) => a.startsWith('--metrics-bind-address='));
          const port = Number(metrics?.split(':').pop());
          if (port)
            expect(
              Object.values(peers).some((e) => allowed(policies, e, pod, port)),
              c.name,
            ).to.equal(false);
        }
      });

      it("lets the Services' target ports through to their callers: metrics to Prometheus, webhooks to kube-apiserver", () => {
        const services = [...readManifestDir('monitoring'), ...readManifestDir('webhooks')].filter(
          (x) => x.kind === 'Service',
        );
        expect(services).to.have.length(2);
        for (const s of services) {
          const spec = s.spec as { selector: Record<string, string>; ports: Array<{ targetPort: string | number }> };
          expect(selects({ matchLabels: spec.selector }, pod.labels), s.metadata?.name).to.equal(true);
          const caller = s.metadata?.name === 'machine-api-operator-webhook' ? peers.hostNetwork : peers.prometheus;
          for (const { targetPort } of spec.ports) {
            const port = typeof targetPort === 'number' ? targetPort : pod.namedPorts?.[targetPort];
            expect(port, `${s.metadata?.name} ${targetPort}`).to.be.a('number');
            expect(allowed(policies, caller, pod, port!), `${s.metadata?.name} ${targetPort}`).to.equal(true);
          }
        }
      });

      it('reaches kube-apiserver (6443), cluster DNS (53 and 5353, UDP and TCP) and the cloud over HTTPS, and nothing else', () => {
        expect(allowed(policies, pod, peers.hostNetwork, 6443)).to.equal(true);
        for (const port of [53, 5353])
          for (const protocol of ['UDP', 'TCP'] as const)
            expect(allowed(policies, pod, dnsPod, port, protocol), `dns ${port}/${protocol}`).to.equal(true);
        expect(allowed(policies, pod, internet, 443)).to.equal(true);
        expect(allowed(policies, pod, internet, 53, 'UDP'), 'DNS outside the cluster').to.equal(false);
        for (const port of [22, 80, 2379, 8080, 10250])
          expect(allowed(policies, pod, internet, port), `egress ${port}`).to.equal(false);
        expect(allowed(policies, pod, peers.neighbour, 8443), 'to a neighbour').to.equal(false);
      });
    });
  }
});
