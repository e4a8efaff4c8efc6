import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Leases } from '../../lib/client/resources.js';
import { defaultCrdDir } from '../../sim/apiserver/index.js';
import { generateServingCert, type ServingCert } from '../../sim/apiserver/tls-cert.js';
import { Infrastructures } from '../../cmd/internal/index.js';
import type { AdmissionReview } from '../../lib/index.js';
import { startTestEnv, type TestEnv } from '../../sim/kit/test-env.js';
import { eventually } from '../lib/machineset/env-helpers.js';
import { Command } from 'commander';
import { machineHealthCheckBinary } from '../../cmd/machine-healthcheck.js';
import { machineSetControllerBinary } from '../../cmd/machineset-controller.js';
import { nodeLinkControllerBinary } from '../../cmd/nodelink-controller.js';
import {
  addStandardFlags,
  HEAP_SIZE_LIMIT_METRIC,
  SERVICE_ACCOUNT_NAMESPACE_FILE,
  type BinarySpec,
} from '../../cmd/internal/index.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { parseKlogLines } from '../lib/base/support/klog-lines.js';
import { freePort, httpGet, startBinary, waitForOk, type Child } from './binary-harness.js';
import { maoArgs } from './mao-args.js';

interface BinaryCase {
  name: string;
  /** The name its main controller has in controller-runtime's metrics. */
  controller: string;
  spec: BinarySpec;
  leaseId: string;
  defaultMetrics: string;
  defaultHealth: string;
  /** Names that must be on /metrics once it runs. */
  metrics: string[];
  /** The arguments the machine-api-operator gives this container. */
  maoArgs: string[];
}

/** On every binary's /metrics: the V8 heap used (prom-client's default) and the heap limit beside it. */
const PROCESS_METRICS = ['nodejs_heap_size_used_bytes ', `${HEAP_SIZE_LIMIT_METRIC} `];

const binaries: BinaryCase[] = [
  {
    name: 'machineset-controller',
    controller: 'machineset_controller',
    spec: machineSetControllerBinary,
    leaseId: 'cluster-api-provider-machineset-leader',
    defaultMetrics: '":8082"',
    defaultHealth: '":9441"',
    maoArgs: maoArgs.machineSetController,
    metrics: [
      'mapi_machine_items',
      'mapi_machineset_items',
      'mapi_mao_collector_up{kind="mapi_machine_items"} 1',
      'controller_runtime_reconcile_total{controller="machineset_controller"',
    ],
  },
  {
    name: 'machine-healthcheck',
    controller: 'machinehealthcheck-controller',
    spec: machineHealthCheckBinary,
    leaseId: 'cluster-api-provider-healthcheck-leader',
    defaultMetrics: '":8083"',
    defaultHealth: '":9442"',
    maoArgs: maoArgs.machineHealthCheck,
    metrics: [
      'mapi_machinehealthcheck_nodes_covered',
      'mapi_machinehealthcheck_remediation_success_total',
      'mapi_machinehealthcheck_short_circuit',
      'controller_runtime_reconcile_total{controller="machinehealthcheck-controller"',
    ],
  },
  {
    name: 'nodelink-controller',
    controller: 'nodelink-controller',
    spec: nodeLinkControllerBinary,
    leaseId: 'cluster-api-provider-nodelink-leader',
    defaultMetrics: '"0"',
    defaultHealth: '""',
    maoArgs: maoArgs.nodeLinkController,
    metrics: ['controller_runtime_reconcile_total{controller="nodelink-controller"'],
  },
];

describe("controller binaries, started with the machine-api-operator's arguments", function () {
  this.timeout(90_000);
  let env: TestEnv;
  let dir: string;
  let kubeconfig: string;
  // The children start together (each takes seconds to load), then each test checks its own.
  const running = new Map<string, { child: Child; health: number; metrics: number }>();
  // The machineset-controller's webhooks: the serving certificate the operator mounts, and the port they answer on.
  let cert: ServingCert;
  let webhookPort: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'controller-binaries-'));
    kubeconfig = join(dir, 'kubeconfig');
    const crdDirs = [defaultCrdDir()!, fileURLToPath(new URL('../../cmd/local/crds', import.meta.url))];
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig, crdDirs } });
    // What the installer records and the webhooks read at start.
    await env.client.create(Infrastructures, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Infrastructure',
      metadata: { name: 'cluster' },
      status: { infrastructureName: 'demo-x7k2p', platformStatus: { type: 'AWS', aws: { region: 'us-east-2' } } },
    });
    const certDir = join(dir, 'webhook-tls');
    mkdirSync(certDir);
    cert = generateServingCert('machine-api-operator-webhook');
    writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
    writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
    webhookPort = await freePort();
    for (const b of binaries) {
      const [health, metrics] = [await freePort(), await freePort()];
      const webhook =
        b.name === 'machineset-controller'
          ? ['--webhook-cert-dir', certDir, '--webhook-port', String(webhookPort)]
          : [];
      // Exactly the operator's arguments, then what only a test must choose: where the cluster, the certificate and free ports are.
      const child = startBinary(b.name, [
        ...b.maoArgs,
        '--kubeconfig',
        kubeconfig,
        '--health-addr',
        `127.0.0.1:${health}`,
        '--metrics-bind-address',
        `127.0.0.1:${metrics}`,
        '--leader-elect-resource-namespace',
        'default',
        ...webhook,
      ]);
      running.set(b.name, { child, health, metrics });
    }
  });
  after(async () => {
    for (const { child } of running.values()) {
      if (child.process.exitCode === null) {
        child.process.kill('SIGKILL');
        await child.exited;
      }
    }
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const b of binaries) {
    describe(b.name, () => {
      it('documents its flags, leader-election id and default ports in --help', async () => {
        const spec = b.spec;
        const cmd = addStandardFlags(new Command(spec.name).description(spec.description), spec.defaults);
        spec.flags?.(cmd);
        const help = cmd.helpInformation();
        for (const flag of [
          '--kubeconfig',
          '--namespace',
          '--leader-elect',
          '--leader-elect-lease-duration',
          '--leader-elect-resource-namespace',
          '--metrics-bind-address',
          '--health-addr',
          '--feature-gates',
        ]) {
          expect(help).to.include(flag);
        }
        expect(help).to.include(`"${b.leaseId}"`);
        expect(textAfter(help, '--metrics-bind-address <addr>')).to.include(`default: ${b.defaultMetrics}`);
        expect(textAfter(help, '--health-addr <addr>')).to.include(`default: ${b.defaultHealth}`);
      });

      if (b.name === 'machineset-controller') {
        it('answers AdmissionReviews over TLS on its webhook port: AWS defaults and the cluster label from the Infrastructure, MachineSet denials with the field path', async () => {
          const { child, health, metrics } = running.get(b.name)!;
          await waitForOk(`http://127.0.0.1:${health}/readyz`, child);
          const machine = {
            apiVersion: 'machine.openshift.io/v1beta1',
            kind: 'Machine',
            metadata: { name: 'm', namespace: 'openshift-machine-api' },
            spec: { providerSpec: { value: { ami: { id: 'ami-1' } } } },
          };
          const mutated = await eventually(
            () =>
              admissionPost(
                webhookPort,
                cert.certPem,
                '/mutate-machine-openshift-io-v1beta1-machine',
                review('Machine', machine),
              ).catch(() => undefined),
            { timeoutMs: 40_000, what: 'the webhook server' },
          );
          expect(mutated.response).to.deep.include({ uid: 'review-1', allowed: true, patchType: 'JSONPatch' });
          const patch = JSON.parse(Buffer.from(mutated.response!.patch!, 'base64').toString()) as Array<{
            path: string;
            value: unknown;
          }>;
          expect(patch).to.deep.include({
            op: 'add',
            path: '/metadata/labels',
            value: { 'machine.openshift.io/cluster-api-cluster': 'demo-x7k2p' },
          });
          expect(patch).to.deep.include({
            op: 'add',
            path: '/spec/providerSpec/value/placement',
            value: { region: 'us-east-2' },
          });
          const machineSet = {
            apiVersion: 'machine.openshift.io/v1beta1',
            kind: 'MachineSet',
            metadata: { name: 'ms', namespace: 'openshift-machine-api' },
            spec: {
              selector: { matchLabels: { a: 'b' } },
              template: {
                metadata: { labels: { a: 'c' } },
                spec: {
                  providerSpec: {
                    value: {
                      ami: { id: 'ami-1' },
                      instanceType: 'm5.large',
                      placement: { region: 'us-east-2' },
                      placementGroupPartition: 3,
                    },
                  },
                },
              },
            },
          };
          const denied = await admissionPost(
            webhookPort,
            cert.certPem,
            '/validate-machine-openshift-io-v1beta1-machineset',
            review('MachineSet', machineSet),
          );
          expect(denied.response?.allowed).to.equal(false);
          expect(denied.response?.status?.message).to.equal(
            '[spec.template.metadata.labels: Invalid value: {"a":"c"}: `selector` does not match template `labels`, ' +
              'spec.template.spec.providerSpec.value.placementGroupPartition: Invalid value: 3: providerSpec.placementGroupPartition is set but providerSpec.placementGroupName is empty]',
          );
          const text = await waitForOk(`http://127.0.0.1:${metrics}/metrics`, child);
          expect(text).to.include(
            'mapi_admission_denials_total{webhook="/validate-machine-openshift-io-v1beta1-machineset"} 1',
          );
        });
      }

      it("logs klog text lines, answers controller-runtime's health checks, and exports client-go's and controller-runtime's metrics", async () => {
        const { child, health, metrics } = running.get(b.name)!;
        const probe = `http://127.0.0.1:${health}`;
        await waitForOk(`${probe}/readyz`, child);
        expect(await httpGet(`${probe}/healthz/ping`)).to.deep.equal({ status: 200, body: 'ok' });
        expect(await httpGet(`${probe}/readyz?verbose`)).to.deep.equal({
          status: 200,
          body: '[+]caches-synced ok\n[+]ping ok\nhealthz check passed\n',
        });
        expect((await httpGet(`${probe}/healthz/no-such-check`)).status).to.equal(404);
        const { text, families } = await eventually(
          async () => {
            const text = await waitForOk(`http://127.0.0.1:${metrics}/metrics`, child);
            const families = parsePrometheusTextFormat(text);
            const leading = families
              .find((f) => f.name === 'leader_election_master_status')
              ?.metrics.find((m) => m.labels?.name === b.leaseId);
            return leading?.value === '1' && { text, families };
          },
          { timeoutMs: 40_000, what: 'leader_election_master_status 1' },
        );
        const family = (name: string) => families.find((f) => f.name === name);
        const apiHost = new URL(env.controlPlane.url).host;
        expect(family('rest_client_requests_total')?.type).to.equal('COUNTER');
        expect(family('rest_client_requests_total')?.metrics.map((m) => m.labels)).to.deep.include({
          code: '200',
          method: 'GET',
          host: apiHost,
        });
        expect(family('rest_client_request_duration_seconds')?.type).to.equal('HISTOGRAM');
        // The parser folds a labelled histogram's series together, so its buckets are read from the text.
        for (const le of ['0.005', '0.025', '0.1', '0.25', '0.5', '1', '2', '4', '8', '15', '30', '60', '+Inf'])
          expect(text).to.include(
            `rest_client_request_duration_seconds_bucket{le="${le}",verb="GET",host="${apiHost}"}`,
          );
        expect(family('controller_runtime_max_concurrent_reconciles')?.metrics).to.deep.include({
          labels: { controller: b.controller },
          value: '10',
        });
        expect(family('controller_runtime_active_workers')?.metrics.map((m) => m.labels)).to.deep.include({
          controller: b.controller,
        });
        // The operator's --logtostderr=true --v=3: klog's text lines on stderr, the lease among them.
        const lines = parseKlogLines(child.output());
        expect(
          lines.find((l) => l.msg === 'successfully acquired lease'),
          child.output(),
        ).to.deep.include({
          severity: 'I',
          file: 'leader-elector.ts',
        });
        expect(lines.filter((l) => l.raw.startsWith('I')).length).to.be.greaterThan(2);
        expect(
          child
            .output()
            .split('\n')
            .filter((l) => l.startsWith('{')),
        ).to.deep.equal([]);
      });

      it('serves /healthz and /metrics, holds its lease, and exits 0 on SIGTERM', async () => {
        const { child, health, metrics } = running.get(b.name)!;
        try {
          expect(await waitForOk(`http://127.0.0.1:${health}/healthz`, child)).to.equal('ok');
          await waitForOk(`http://127.0.0.1:${health}/readyz`, child);
          const lease = await eventually(() => env.client.get(Leases, { namespace: 'default', name: b.leaseId }), {
            timeoutMs: 40_000,
          });
          expect(lease.spec?.holderIdentity).to.be.a('string').and.not.equal('');
          const body = await eventually(
            async () => {
              const text = await waitForOk(`http://127.0.0.1:${metrics}/metrics`, child);
              return [...b.metrics, ...PROCESS_METRICS].every((m) => text.includes(m)) && text;
            },
            { timeoutMs: 40_000 },
          );
          expect(body).to.include('# TYPE');
        } finally {
          child.process.kill('SIGTERM');
        }
        expect(await child.exited, child.output()).to.equal(0);
      });
    });
  }
});

describe("controller binaries out of a cluster, with the operator's --leader-elect=true and no --leader-elect-resource-namespace", function () {
  this.timeout(60_000);
  before(function () {
    // Inside a pod the service-account namespace file exists and is the right answer: nothing to refuse there.
    if (existsSync(SERVICE_ACCOUNT_NAMESPACE_FILE)) this.skip();
  });

  for (const [name, args] of [
    ['nodelink-controller', maoArgs.nodeLinkController],
    ['machine-api-provider-aws', maoArgs.machineController('aws')],
  ] as const) {
    it(`${name} exits 1 at start naming --leader-elect-resource-namespace, as controller-runtime refuses to guess`, async () => {
      // The kubeconfig is never read: the namespace is decided before any connection.
      const child = startBinary(name, [...args, '--kubeconfig', '/nonexistent/kubeconfig']);
      expect(await child.exited, child.output()).to.equal(1);
      expect(child.output())
        .to.contain('unable to find leader election namespace: not running in-cluster')
        .and.contain('please specify --leader-elect-resource-namespace');
    });
  }
});

function review(kind: string, object: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'review-1',
      kind: { group: 'machine.openshift.io', version: 'v1beta1', kind },
      operation: 'CREATE',
      namespace: 'openshift-machine-api',
      object,
    },
  });
}

/** POSTs an AdmissionReview as kube-apiserver does, trusting only the webhook's serving certificate. */
function admissionPost(port: number, ca: string, path: string, body: string): Promise<AdmissionReview> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca,
        agent: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdmissionReview);
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The help text from `marker` on; fails when the marker is missing. */
function textAfter(help: string, marker: string): string {
  const at = help.indexOf(marker);
  expect(at, `${marker} in --help`).to.be.at.least(0);
  return help.slice(at);
}
