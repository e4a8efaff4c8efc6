// manifests/monitoring: how Prometheus reaches the controllers' metrics (Service → kube-rbac-proxy sidecar →
// the binary's loopback metrics address, all in the Deployment of every cloud), who may read them, and the
// machine-api-operator's five alert rules. A link that does not hold here silently breaks scraping or alerting
// on a real cluster, with nothing failing at deploy time. test/cmd/alert-rules.test.ts evaluates the rules
// against the running binaries.
import { expect } from 'chai';
import { dirname } from 'node:path';
import {
  controllersOf,
  deploymentClouds,
  flagsOf,
  readDeployment,
  type Container,
  type Deployment,
} from './deployment-manifest.js';
import { readManifestDir, type ManifestDoc } from './manifest-files.js';
import { evaluateInstant, UnsupportedPromqlError } from './promql-evaluator.js';

interface ServicePort {
  name: string;
  port: number;
  targetPort: string;
}
interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const docs = readManifestDir('monitoring');
const one = (kind: string): ManifestDoc => {
  const found = docs.filter((d) => d.kind === kind);
  if (found.length !== 1) throw new Error(`manifests/monitoring has ${found.length} ${kind}, expected 1`);
  return found[0]!;
};
const service = one('Service');
const servicePorts = (service.spec as { ports: ServicePort[] }).ports;
const rules = (one('PrometheusRule').spec as { groups: Array<{ name: string; rules: Rule[] }> }).groups.flatMap(
  (g) => g.rules,
);

/** The operator's alert rules: expressions (whitespace aside), durations and labels, exactly as it ships them. */
const maoAlerts: Record<string, { expr: string; for: string }> = {
  MachineWithoutValidNode: {
    expr: 'sum by (name, namespace) (mapi_machine_created_timestamp_seconds unless on(node) kube_node_info) > 0',
    for: '60m',
  },
  MachineWithNoRunningPhase: {
    expr: 'sum by (name, namespace) (mapi_machine_created_timestamp_seconds{phase!~"Running|Deleting"}) > 0',
    for: '60m',
  },
  MachineNotYetDeleted: {
    expr: 'sum by (name, namespace) (avg_over_time(mapi_machine_created_timestamp_seconds{phase="Deleting"}[15m])) > 0',
    for: '360m',
  },
  MachineAPIOperatorMetricsCollectionFailing: { expr: 'mapi_mao_collector_up == 0', for: '5m' },
  MachineHealthCheckUnterminatedShortCircuit: { expr: 'mapi_machinehealthcheck_short_circuit == 1', for: '30m' },
};

/** Which binary's metrics each sidecar serves, as the operator pairs them. */
const sidecarFor: Record<string, string> = {
  'machine-mtrc': 'machine-controller',
  'machineset-mtrc': 'machineset-controller',
  'mhc-mtrc': 'machine-healthcheck-controller',
};

const argOf = (c: Container, flag: string): string => {
  const arg = (c.args ?? []).find((a) => a.startsWith(`${flag}=`));
  if (arg === undefined) throw new Error(`${c.name} has no ${flag}=`);
  return arg.slice(flag.length + 1);
};
const mountOf = (c: Container, volume: string): string | undefined =>
  c.volumeMounts?.find((m) => m.name === volume)?.mountPath;
const sidecarsOf = (d: Deployment): Container[] =>
  d.spec.template.spec.containers.filter((c) => c.name.startsWith('kube-rbac-proxy-'));
/** Loopback, as a sidecar in the same pod reaches it: Go resolves "localhost" to 127.0.0.1 (and ::1). */
const loopback = new Set(['localhost', '127.0.0.1']);

describe('manifests/monitoring', () => {
  it("has the machine-api-controllers metrics Service: the operator's three ports, a serving certificate from the service CA, selecting the controllers' pod", () => {
    expect(service.metadata).to.deep.include({
      name: 'machine-api-controllers',
      namespace: 'openshift-machine-api',
      labels: { 'k8s-app': 'controller' },
    });
    expect(service.metadata?.annotations?.['service.alpha.openshift.io/serving-cert-secret-name']).to.equal(
      'machine-api-controllers-tls',
    );
    expect(servicePorts.map((p) => [p.name, p.port, p.targetPort])).to.deep.equal([
      ['machine-mtrc', 8441, 'machine-mtrc'],
      ['machineset-mtrc', 8442, 'machineset-mtrc'],
      ['mhc-mtrc', 8444, 'mhc-mtrc'],
    ]);
  });

  for (const cloud of deploymentClouds()) {
    describe(`with the ${cloud} Deployment`, () => {
      const d = readDeployment(cloud);
      const sidecars = sidecarsOf(d);

      it("the Service selects its pod and each Service port reaches exactly one sidecar's TLS port", () => {
        const selector = (service.spec as { selector: Record<string, string> }).selector;
        for (const [k, v] of Object.entries(selector)) expect(d.spec.template.metadata.labels[k], k).to.equal(v);
        for (const p of servicePorts) {
          const owners = d.spec.template.spec.containers.filter((c) =>
            (c.ports ?? []).some((cp) => cp.name === p.targetPort),
          );
          expect(
            owners.map((c) => c.name),
            p.name,
          ).to.deep.equal([`kube-rbac-proxy-${p.targetPort}`]);
          const listen = argOf(owners[0]!, '--secure-listen-address');
          expect(Number(listen.split(':').pop())).to.equal(
            owners[0]!.ports!.find((cp) => cp.name === p.targetPort)!.containerPort,
          );
        }
      });

      for (const [portName, controller] of Object.entries(sidecarFor)) {
        it(`kube-rbac-proxy-${portName} forwards to the address ${controller} serves its metrics on, in the same pod`, async () => {
          const sidecar = sidecars.find((c) => c.name === `kube-rbac-proxy-${portName}`);
          expect(sidecar, `kube-rbac-proxy-${portName}`).to.not.equal(undefined);
          const upstream = new URL(argOf(sidecar!, '--upstream'));
          expect(upstream.protocol).to.equal('http:');
          expect(loopback.has(upstream.hostname), `upstream host ${upstream.hostname}`).to.equal(true);
          const target = controllersOf(d).find((c) => c.name === controller);
          expect(target, controller).to.not.equal(undefined);
          const bind = (await flagsOf(target!, cloud)).metricsBindAddress;
          const at = bind.lastIndexOf(':');
          const [host, port] = [bind.slice(0, at), bind.slice(at + 1)];
          // An empty host listens on every interface, which loopback reaches too; a named host must be loopback.
          expect(host === '' || loopback.has(host), `${controller} --metrics-bind-address ${bind}`).to.equal(true);
          expect(port, `${controller} metrics port`).to.equal(upstream.port);
        });
      }

      it('every sidecar serves the service-CA certificate of the metrics Service and authorises with the kube-rbac-proxy ConfigMap', () => {
        const volumes = d.spec.template.spec.volumes ?? [];
        const certSecret = service.metadata?.annotations?.['service.alpha.openshift.io/serving-cert-secret-name'];
        const certVolume = volumes.find((v) => v.secret?.secretName === certSecret);
        const configVolume = volumes.find((v) => v.configMap?.name === one('ConfigMap').metadata?.name);
        expect(certVolume, `a volume of Secret ${certSecret}`).to.not.equal(undefined);
        expect(configVolume, 'a volume of the kube-rbac-proxy ConfigMap').to.not.equal(undefined);
        expect(sidecars).to.have.length(3);
        for (const c of sidecars) {
          expect(dirname(argOf(c, '--tls-cert-file')), c.name).to.equal(mountOf(c, certVolume!.name));
          expect(dirname(argOf(c, '--tls-private-key-file')), c.name).to.equal(mountOf(c, certVolume!.name));
          expect(argOf(c, '--config-file'), c.name).to.equal(`${mountOf(c, configVolume!.name)}/config-file.yaml`);
        }
      });
    });
  }

  it("lets the sidecars review tokens and access as the Deployment's ServiceAccount, and Prometheus read what the ConfigMap asks for", () => {
    const config = (one('ConfigMap').data as Record<string, string>)['config-file.yaml'];
    expect(config)
      .to.include('resource: namespace')
      .and.include('subresource: metrics')
      .and.include('namespace: openshift-machine-api');
    const authRules = one('ClusterRole').rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    expect(authRules).to.deep.include({
      apiGroups: ['authentication.k8s.io'],
      resources: ['tokenreviews'],
      verbs: ['create'],
    });
    expect(authRules).to.deep.include({
      apiGroups: ['authorization.k8s.io'],
      resources: ['subjectaccessreviews'],
      verbs: ['create'],
    });
    const sa = readDeployment(deploymentClouds()[0]!).spec.template.spec.serviceAccountName;
    expect(one('ClusterRoleBinding').subjects).to.deep.equal([
      { kind: 'ServiceAccount', name: sa, namespace: 'openshift-machine-api' },
    ]);
    expect((one('ClusterRoleBinding').roleRef as { name: string }).name).to.equal(one('ClusterRole').metadata?.name);
    const role = one('Role').rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    expect(role).to.deep.include({ apiGroups: [''], resources: ['namespace/metrics'], verbs: ['get'] });
    expect(one('RoleBinding').subjects).to.deep.equal([
      { kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'openshift-monitoring' },
    ]);
  });

  it("has a ServiceMonitor scraping every Service port over HTTPS with the service CA and the Service's DNS name", () => {
    const sm = one('ServiceMonitor');
    const spec = sm.spec as {
      selector: { matchLabels: Record<string, string> };
      namespaceSelector: { matchNames: string[] };
      endpoints: Array<{
        port: string;
        scheme: string;
        interval: string;
        bearerTokenFile: string;
        tlsConfig: { caFile: string; serverName: string };
      }>;
    };
    for (const [k, v] of Object.entries(spec.selector.matchLabels))
      expect(service.metadata?.labels?.[k], k).to.equal(v);
    expect(spec.namespaceSelector.matchNames).to.deep.equal([service.metadata?.namespace]);
    expect(spec.endpoints.map((e) => e.port)).to.deep.equal(servicePorts.map((p) => p.name));
    for (const e of spec.endpoints) {
      expect(e).to.deep.include({
        scheme: 'https',
        interval: '30s',
        bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
      });
      expect(e.tlsConfig).to.deep.equal({
        caFile: '/etc/prometheus/configmaps/serving-certs-ca-bundle/service-ca.crt',
        serverName: `${service.metadata?.name}.${service.metadata?.namespace}.svc`,
      });
    }
  });

  it("has the operator's five alerts with its expressions, `for` durations and severity, each with a summary and description", () => {
    expect(rules.map((r) => r.alert).sort()).to.deep.equal(Object.keys(maoAlerts).sort());
    for (const r of rules) {
      const want = maoAlerts[r.alert]!;
      expect(r.expr.trim().replace(/\s+/g, ' '), r.alert).to.equal(want.expr);
      expect(r.for, r.alert).to.equal(want.for);
      expect(r.labels, r.alert).to.deep.equal({ severity: 'warning' });
      expect(r.annotations.summary, r.alert).to.be.a('string').and.not.equal('');
      expect(r.annotations.description, r.alert).to.be.a('string').and.not.equal('');
    }
  });

  it('every alert expression is one the evaluator of test/cmd/alert-rules.test.ts implements, and it refuses what it does not', () => {
    for (const r of rules) expect(() => evaluateInstant(r.expr, [], Date.now()), r.alert).to.not.throw();
    for (const unsupported of [
      'rate(mapi_instance_create_failed[5m])',
      'x{phase=~"Run.*"}',
      'x > bool 0',
      'x + 1',
      'x * on(a) group_left y',
    ]) {
      expect(() => evaluateInstant(unsupported, [], Date.now()), unsupported).to.throw(UnsupportedPromqlError);
    }
  });
});
