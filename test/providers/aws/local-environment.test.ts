// `npm start` (AWS, the default) as a library: the local control plane, the EC2 emulator, the kubelet
// simulator and the AWS binaries in-process, with the samples applied (MachineSet and MachineHealthCheck).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import {
  Events,
  MachineInterruptibleInstanceLabel,
  Machines,
  MachineSets,
  Nodes,
  type Machine,
} from '../../../lib/index.js';
import { eventually, machineFor, waitForMachines } from '../../../sim/kit/index.js';
import { startLocalEnvironment, type LocalEnvironment } from '../../../cmd/local/environment.js';

const NS = 'openshift-machine-api';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

describe('the local environment with --provider aws', function () {
  this.timeout(120_000);
  let dir: string;
  let env: LocalEnvironment | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mapi-local-aws-'));
    env = await startLocalEnvironment({
      provider: 'aws',
      stateDir: dir,
      bootDelayMs: 100,
      terminateDelayMs: 100,
      logStream: new PassThrough().resume(),
      pprof: true,
    });
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('brings the sample machines up without the MachineHealthCheck calling them unhealthy or restricting remediation', async () => {
    const machines = await waitForMachines(env!.client, {
      namespace: NS,
      count: 3,
      phase: 'Running',
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    for (const m of machines) expect(m.status?.nodeRef?.name).to.be.a('string');
    const reasons = (await env!.client.list(Events, { namespace: NS })).items.map((e) => e.reason);
    expect(reasons.filter((r) => r === 'DetectedUnhealthy' || r === 'RemediationRestricted')).to.deep.equal([]);
  });

  it("serves each binary's profiling endpoints on a loopback port of its own with --pprof, listed in endpoints.json", async () => {
    const pprof = env!.endpoints.pprof ?? {};
    expect(Object.keys(pprof).sort()).to.deep.equal(
      ['machine-api-provider-aws', 'machine-healthcheck', 'machineset-controller', 'nodelink-controller'].sort(),
    );
    expect(new Set(Object.values(pprof)).size).to.equal(4);
    for (const b of env!.endpoints.binaries) expect(b.command, b.name).to.include('--enable-pprof');
    for (const url of Object.values(pprof)) {
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/debug\/pprof$/);
      expect(await (await fetch(`${url}/`)).text()).to.contain('profile: CPU profile');
    }
    const cpu = (await (await fetch(`${pprof['machine-api-provider-aws']}/profile?seconds=1`)).json()) as {
      nodes: unknown[];
    };
    expect(cpu.nodes.length).to.be.greaterThan(1);
  });

  it('puts the interruptible-instance label on the Node of a spot Machine', async () => {
    const client = env!.client;
    const set = await client.get(MachineSets, { namespace: NS, name: 'worker-us-east-1a' });
    const spec = { ...(set.spec?.template?.spec?.providerSpec?.value ?? {}), spotMarketOptions: {} };
    // Not labelled for the sample MachineSet, which would otherwise adopt it and scale back to 3.
    await client.create(Machines, machineFor({ name: 'spot-1', namespace: NS, clusterId: 'local', spec }));
    const nodeName = await eventually(
      'the spot Machine to get a Node',
      async () => (await client.get<Machine>(Machines, { namespace: NS, name: 'spot-1' })).status?.nodeRef?.name,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const labels = await eventually(
      'the interruptible-instance label on the Node',
      async () => {
        const node = await client.get(Nodes, { name: nodeName });
        return node.metadata.labels?.[MachineInterruptibleInstanceLabel] !== undefined
          ? node.metadata.labels
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(labels).to.have.property(MachineInterruptibleInstanceLabel, '');
  });

  it('runs a termination handler on that Node, which marks it Terminating when EC2 announces the reclaim', async () => {
    const client = env!.client;
    const machine = await client.get<Machine>(Machines, { namespace: NS, name: 'spot-1' });
    const nodeName = machine.status?.nodeRef?.name ?? '';
    await eventually(
      "the instance's metadata endpoint",
      async () => (await env!.cloud.metadataEnv?.(machine.spec?.providerID ?? '')) !== undefined,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    env!.cloud.reclaim?.(machine.spec?.providerID ?? '');
    const condition = await eventually(
      'Terminating=True on the Node',
      async () =>
        (await client.get(Nodes, { name: nodeName })).status?.conditions?.find(
          (c) => c.type === 'Terminating' && c.status === 'True',
        ),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(condition.reason).to.equal('TerminationRequested');
  });
});
