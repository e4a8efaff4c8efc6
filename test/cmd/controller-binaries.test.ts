import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Leases } from '../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../lib/testing/test-env.js';
import { eventually } from '../lib/machineset/env-helpers.js';
import { Command } from 'commander';
import { machineHealthCheckBinary } from '../../cmd/machine-healthcheck.js';
import { machineSetControllerBinary } from '../../cmd/machineset-controller.js';
import { nodeLinkControllerBinary } from '../../cmd/nodelink-controller.js';
import { addStandardFlags, type BinarySpec } from '../../cmd/internal/index.js';
import { freePort, startBinary, waitForOk, type Child } from './binary-harness.js';
import { maoArgs } from './mao-args.js';

interface BinaryCase {
  name: string;
  spec: BinarySpec;
  leaseId: string;
  defaultMetrics: string;
  defaultHealth: string;
  /** Names that must be on /metrics once it runs. */
  metrics: string[];
  /** The arguments the machine-api-operator gives this container. */
  maoArgs: string[];
}

const binaries: BinaryCase[] = [
  {
    name: 'machineset-controller',
    spec: machineSetControllerBinary,
    leaseId: 'cluster-api-provider-machineset-leader',
    defaultMetrics: '":8082"',
    defaultHealth: '":9441"',
    maoArgs: maoArgs.machineSetController,
    metrics: ['mapi_machine_items', 'mapi_machineset_items', 'mapi_mao_collector_up{kind="mapi_machine_items"} 1', 'controller_runtime_reconcile_total{controller="machineset_controller"'],
  },
  {
    name: 'machine-healthcheck',
    spec: machineHealthCheckBinary,
    leaseId: 'cluster-api-provider-healthcheck-leader',
    defaultMetrics: '":8083"',
    defaultHealth: '":9442"',
    maoArgs: maoArgs.machineHealthCheck,
    metrics: ['mapi_machinehealthcheck_nodes_covered', 'mapi_machinehealthcheck_remediation_success_total', 'mapi_machinehealthcheck_short_circuit', 'controller_runtime_reconcile_total{controller="machinehealthcheck-controller"'],
  },
  {
    name: 'nodelink-controller',
    spec: nodeLinkControllerBinary,
    leaseId: 'cluster-api-provider-nodelink-leader',
    defaultMetrics: '"0"',
    defaultHealth: '""',
    maoArgs: maoArgs.nodeLinkController,
    metrics: ['controller_runtime_reconcile_total{controller="nodelink-controller"'],
  },
];

describe('controller binaries, started with the machine-api-operator\'s arguments', function () {
  this.timeout(90_000);
  let env: TestEnv;
  let dir: string;
  let kubeconfig: string;
  // The children start together (each takes seconds to load), then each test checks its own.
  const running = new Map<string, { child: Child; health: number; metrics: number }>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'controller-binaries-'));
    kubeconfig = join(dir, 'kubeconfig');
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig } });
    for (const b of binaries) {
      const [health, metrics] = [await freePort(), await freePort()];
      // Exactly the operator's arguments, then what only a test must choose: where the cluster and free ports are.
      const child = startBinary(b.name, [
        ...b.maoArgs,
        '--kubeconfig', kubeconfig,
        '--health-addr', `127.0.0.1:${health}`,
        '--metrics-bind-address', `127.0.0.1:${metrics}`,
        '--leader-elect-resource-namespace', 'default',
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
        for (const flag of ['--kubeconfig', '--namespace', '--leader-elect', '--leader-elect-lease-duration', '--leader-elect-resource-namespace', '--metrics-bind-address', '--health-addr', '--feature-gates']) {
          expect(help).to.include(flag);
        }
        expect(help).to.include(`"${b.leaseId}"`);
        expect(textAfter(help, '--metrics-bind-address <addr>')).to.include(`default: ${b.defaultMetrics}`);
        expect(textAfter(help, '--health-addr <addr>')).to.include(`default: ${b.defaultHealth}`);
      });

      it('serves /healthz and /metrics, holds its lease, and exits 0 on SIGTERM', async () => {
        const { child, health, metrics } = running.get(b.name)!;
        try {
          expect(await waitForOk(`http://127.0.0.1:${health}/healthz`, child)).to.equal('ok');
          await waitForOk(`http://127.0.0.1:${health}/readyz`, child);
          const lease = await eventually(() => env.client.get(Leases, { namespace: 'default', name: b.leaseId }), { timeoutMs: 40_000 });
          expect(lease.spec?.holderIdentity).to.be.a('string').and.not.equal('');
          const body = await eventually(async () => {
            const text = await waitForOk(`http://127.0.0.1:${metrics}/metrics`, child);
            return b.metrics.every((m) => text.includes(m)) && text;
          }, { timeoutMs: 40_000 });
          expect(body).to.include('# TYPE');
        } finally {
          child.process.kill('SIGTERM');
        }
        expect(await child.exited, child.output()).to.equal(0);
      });
    });
  }
});

/** The help text from `marker` on; fails when the marker is missing. */
function textAfter(help: string, marker: string): string {
  const at = help.indexOf(marker);
  expect(at, `${marker} in --help`).to.be.at.least(0);
  return help.slice(at);
}
