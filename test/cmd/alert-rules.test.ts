// The alert rules of manifests/monitoring, evaluated against what the running binaries serve. The
// machineset-controller and machine-healthcheck run as child processes with the operator's arguments against the
// local control plane; their /metrics are scraped as Prometheus scrapes them through the ServiceMonitor (target
// labels added, the scraped "namespace" kept as exported_namespace), parsed by a library that reads the exposition
// format, and each rule's exact expression is evaluated by Prometheus's own PromQL grammar. Every alert has
// objects that must make it fire and objects that must not, so a renamed metric or label, or a rule edited out of
// step with the binaries, fails here. `for:` durations are data, checked in test/manifests/monitoring.test.ts.
import { expect } from 'chai';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  defineResource,
  MachineHealthChecks,
  Machines,
  Namespaces,
  Nodes,
  type KubeObject,
  type Machine,
} from '../../lib/index.js';
import { defaultCrdDir } from '../../sim/apiserver/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../sim/kit/index.js';
import { readManifestDir } from '../manifests/manifest-files.js';
import { evaluateInstant, type Labels, type VectorElement } from '../manifests/promql-evaluator.js';
import { ScrapeHistory } from '../manifests/scrape-history.js';
import { freePort, httpGet, startBinary, waitForOk, type Child } from './binary-harness.js';
import { MAO_NAMESPACE, maoArgs } from './mao-args.js';

const CustomResourceDefinitions = defineResource<KubeObject>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
});
const MACHINE_CRD = '0000_10_machine.openshift.io_machines.yaml';

const rules = new Map(
  (
    readManifestDir('monitoring').find((d) => d.kind === 'PrometheusRule')!.spec as {
      groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
    }
  ).groups
    .flatMap((g) => g.rules)
    .map((r) => [r.alert, r.expr]),
);

interface Scraped {
  name: string;
  child: Child;
  metricsUrl: string;
  /** The labels Prometheus gives every sample of this target (ServiceMonitor machine-api-controllers). */
  target: Labels;
}

describe("alert rules of manifests/monitoring against the running binaries' metrics", function () {
  this.timeout(120_000);
  let env: TestEnv;
  let dir: string;
  const scraped: Scraped[] = [];
  const history = new ScrapeHistory();

  /** Scrapes every binary once (and kube-state-metrics' view of the Nodes), as one Prometheus scrape round. */
  async function scrapeRound(): Promise<number> {
    const at = Date.now();
    for (const s of scraped) history.add((await httpGet(s.metricsUrl)).body, at, s.target);
    history.add(await kubeStateMetricsNodes(env), at, { namespace: 'openshift-monitoring', job: 'kube-state-metrics' });
    return at;
  }
  /** Two rounds a moment apart (range functions see both), then the rule evaluated at the second. */
  async function fired(alert: string): Promise<VectorElement[]> {
    const expr = rules.get(alert);
    if (!expr) throw new Error(`manifests/monitoring has no alert ${alert}`);
    await scrapeRound();
    await new Promise((r) => setTimeout(r, 200));
    return evaluateInstant(expr, history.series(), await scrapeRound());
  }
  const scrapeText = async (name: string): Promise<string> =>
    (await httpGet(scraped.find((s) => s.name === name)!.metricsUrl)).body;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'alert-rules-'));
    // The Machine CRD is held back at first: the machineset-controller cannot list Machines until it is created.
    const crds = join(dir, 'crds');
    mkdirSync(crds);
    for (const f of [
      '0000_10_machine.openshift.io_machinesets.yaml',
      '0000_10_machine.openshift.io_machinehealthchecks.yaml',
    ])
      copyFileSync(join(defaultCrdDir()!, f), join(crds, f));
    const kubeconfig = join(dir, 'kubeconfig');
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig, crdDirs: [crds] } });
    await env.client.create(Namespaces, { metadata: { name: MAO_NAMESPACE } });
    for (const [name, args, endpoint] of [
      ['machineset-controller', [...maoArgs.machineSetController, '--webhook-enabled=false'], 'machineset-mtrc'],
      ['machine-healthcheck', maoArgs.machineHealthCheck, 'mhc-mtrc'],
    ] as const) {
      const [metrics, health] = [await freePort(), await freePort()];
      // The operator's arguments, then what only a test must choose: the cluster, free ports, the Lease's namespace.
      const child = startBinary(name, [
        ...args,
        '--kubeconfig',
        kubeconfig,
        '--metrics-bind-address',
        `127.0.0.1:${metrics}`,
        '--health-addr',
        `127.0.0.1:${health}`,
        '--leader-elect-resource-namespace',
        MAO_NAMESPACE,
      ]);
      scraped.push({
        name,
        child,
        metricsUrl: `http://127.0.0.1:${metrics}/metrics`,
        target: {
          namespace: MAO_NAMESPACE,
          job: 'machine-api-controllers',
          service: 'machine-api-controllers',
          endpoint,
        },
      });
    }
    for (const s of scraped) await waitForOk(s.metricsUrl, s.child, 60_000);
  });
  after(async () => {
    for (const { child } of scraped) {
      if (child.process.exitCode === null) {
        child.process.kill('SIGKILL');
        await child.exited;
      }
    }
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('MachineAPIOperatorMetricsCollectionFailing fires for the Machines the collector cannot list, and stops once it can', async () => {
    // The MachineSet informer is running and synced, so a 0 for Machines is the missing CRD, not a slow start.
    await eventually(
      'the MachineSet informer to sync',
      async () =>
        (await scrapeText('machineset-controller')).includes('mapi_mao_collector_up{kind="mapi_machineset_items"} 1'),
      60_000,
    );
    expect(labelsOf(await fired('MachineAPIOperatorMetricsCollectionFailing'), 'kind')).to.deep.equal([
      'mapi_machine_items',
    ]);

    await env.client.create(
      CustomResourceDefinitions,
      parseYaml(readFileSync(join(defaultCrdDir()!, MACHINE_CRD), 'utf8')) as KubeObject,
    );
    await eventually(
      'the Machine informer to sync',
      async () =>
        (await scrapeText('machineset-controller')).includes('mapi_mao_collector_up{kind="mapi_machine_items"} 1'),
      60_000,
    );
    expect(await fired('MachineAPIOperatorMetricsCollectionFailing')).to.deep.equal([]);
  });

  describe('with Machines in every situation the Machine alerts tell apart', () => {
    before(async function () {
      this.timeout(60_000);
      await env.client.create(Nodes, { metadata: { name: 'node-a' } });
      const machines: Array<[string, Record<string, string>, string, string | undefined]> = [
        ['running-linked', { mhc: 'ok' }, 'Running', 'node-a'],
        ['provisioning', {}, 'Provisioning', undefined],
        ['deleting', {}, 'Deleting', 'node-a'],
        ['running-node-gone', {}, 'Running', 'node-gone'],
        ['failed', { mhc: 'short' }, 'Failed', undefined],
      ];
      for (const [name, labels, phase, node] of machines) {
        const created = await env.client.create(Machines, {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: { name, namespace: MAO_NAMESPACE, labels },
          spec: {},
        });
        const status: Machine['status'] = { phase, ...(node ? { nodeRef: { kind: 'Node', name: node } } : {}) };
        await env.client.updateStatus(Machines, { ...created, status });
      }
      const mhc = (name: string, maxUnhealthy: number | string) => ({
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'MachineHealthCheck',
        metadata: { name, namespace: MAO_NAMESPACE },
        spec: {
          selector: { matchLabels: { mhc: name.replace('mhc-', '') } },
          maxUnhealthy,
          unhealthyConditions: [{ type: 'Ready', status: 'Unknown' as const, timeout: '300s' }],
        },
      });
      await env.client.create(MachineHealthChecks, mhc('mhc-short', 0));
      await env.client.create(MachineHealthChecks, mhc('mhc-ok', '100%'));
      await eventually(
        'every Machine in the collector',
        async () => (await scrapeText('machineset-controller')).includes('phase="Failed"'),
        40_000,
      );
      await eventually(
        'both MachineHealthChecks reconciled',
        async () => {
          const text = await scrapeText('machine-healthcheck');
          return (
            text.includes('mapi_machinehealthcheck_short_circuit{name="mhc-short"') &&
            text.includes('mapi_machinehealthcheck_short_circuit{name="mhc-ok"')
          );
        },
        40_000,
      );
    });

    it('MachineWithoutValidNode fires for a Machine without a node and one whose Node is gone, not for one linked to an existing Node', async () => {
      expect(labelsOf(await fired('MachineWithoutValidNode'), 'name')).to.deep.equal([
        'failed',
        'provisioning',
        'running-node-gone',
      ]);
    });

    it('MachineWithNoRunningPhase fires for Provisioning and Failed Machines, not for Running or Deleting ones', async () => {
      expect(labelsOf(await fired('MachineWithNoRunningPhase'), 'name')).to.deep.equal(['failed', 'provisioning']);
    });

    it('MachineNotYetDeleted fires for the Deleting Machine only', async () => {
      expect(labelsOf(await fired('MachineNotYetDeleted'), 'name')).to.deep.equal(['deleting']);
    });

    it("the Machine alerts group by the Machine's name and the namespace Prometheus gives the target", async () => {
      const found = await fired('MachineWithNoRunningPhase');
      expect(found.map((e) => e.labels).sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''))).to.deep.equal([
        { name: 'failed', namespace: MAO_NAMESPACE },
        { name: 'provisioning', namespace: MAO_NAMESPACE },
      ]);
    });

    it('MachineHealthCheckUnterminatedShortCircuit fires for the check with more unhealthy Machines than maxUnhealthy, not for the other', async () => {
      expect(labelsOf(await fired('MachineHealthCheckUnterminatedShortCircuit'), 'name')).to.deep.equal(['mhc-short']);
    });

    it('MachineAPIOperatorMetricsCollectionFailing stays quiet while both caches serve', async () => {
      expect(await fired('MachineAPIOperatorMetricsCollectionFailing')).to.deep.equal([]);
    });
  });
});

/** One label of each element, sorted: what an alert's instances are told apart by. */
function labelsOf(elements: VectorElement[], label: string): string[] {
  return elements.map((e) => e.labels[label] ?? '').sort();
}

/** kube_node_info as kube-state-metrics exports it (one series per Node, labelled node): the Nodes the API has. */
async function kubeStateMetricsNodes(env: TestEnv): Promise<string> {
  const nodes = (await env.client.list(Nodes)).items;
  return [
    '# HELP kube_node_info Information about a cluster node.',
    '# TYPE kube_node_info gauge',
    ...nodes.map((n) => `kube_node_info{node="${n.metadata.name ?? ''}",provider_id="${n.spec?.providerID ?? ''}"} 1`),
    '',
  ].join('\n');
}
