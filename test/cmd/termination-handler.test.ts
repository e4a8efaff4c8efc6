// The termination-handler binary: started with the machine-api-operator's DaemonSet arguments, against the
// local control plane and a cloud emulator's per-instance metadata service. Every run sets the metadata
// endpoints to the emulator, and the tests check the emulator really was the one asked.
import { RunInstancesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { EventEmitter } from 'node:events';
import { Nodes, type KubeClient, type Node } from '../../lib/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../sim/kit/index.js';
import { runTerminationHandlerBinary } from '../../cmd/termination-handler.js';
import { startEc2Emulator, type Ec2Emulator } from '../../sim/aws/index.js';
import { startGceEmulator, type GceEmulator } from '../../sim/gcp/index.js';
import { ec2Client, workerLaunch } from '../sim/aws/ec2-test-env.js';
import { clientsFor, closeClients, insert, waitDone } from '../sim/gcp/fixtures.js';
import { startBinary } from './binary-harness.js';
import { maoArgs } from './mao-args.js';

/** Nothing listens here: an endpoint no test may fall back to without noticing. */
const UNUSED = { AWS_EC2_METADATA_SERVICE_ENDPOINT: 'http://127.0.0.1:9', GCE_METADATA_HOST: '127.0.0.1:9' };

const terminating = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Terminating');

class Signals extends EventEmitter {
  send(sig: NodeJS.Signals): void {
    this.emit(sig);
  }
}

describe('termination-handler binary', function () {
  this.timeout(90_000);
  let env: TestEnv;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'termination-handler-'));
    kubeconfig = join(dir, 'kubeconfig');
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig } });
    client = env.client;
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function registerNode(name: string, providerID: string): Promise<void> {
    await client.create(Nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'machine.openshift.io/interruptible-instance': '' } },
      spec: { providerID },
    });
  }

  describe('on AWS, as the DaemonSet starts it', () => {
    let emu: Ec2Emulator;
    before(
      async () => (emu = await startEc2Emulator({ timings: { bootMs: 10, terminateMs: 10, spotNoticeMs: 60_000 } })),
    );
    after(async () => emu?.stop());

    it('marks its Node Terminating when EC2 announces the Spot interruption, asking only the IMDS it was given, and exits 0 on SIGTERM', async () => {
      const ec2 = ec2Client(emu);
      const out = await ec2.send(
        new RunInstancesCommand(
          workerLaunch('spot-1', {
            InstanceMarketOptions: { MarketType: 'spot' },
            MetadataOptions: { HttpTokens: 'required' },
          }),
        ),
      );
      ec2.destroy();
      const id = out.Instances![0]!.InstanceId!;
      await eventually('instance running', async () => emu.instance(id)?.state === 'running');
      await registerNode('spot-1', `aws:///us-east-1a/${id}`);
      const child = startBinary('termination-handler', maoArgs.terminationHandler('spot-1'), {
        ...UNUSED,
        KUBECONFIG: kubeconfig,
        AWS_EC2_METADATA_SERVICE_ENDPOINT: await emu.metadataEndpoint(id),
      });
      try {
        await eventually('the handler polling IMDS', async () => emu.metadataRequestCount(id) >= 2, {
          timeoutMs: 40_000,
          describe: () => child.output(),
        });
        expect((await client.get(Nodes, { name: 'spot-1' })).status?.conditions ?? []).to.deep.equal([]);
        emu.spotInterrupt(id);
        const cond = await eventually(
          'Terminating=True on the node',
          async () => terminating(await client.get(Nodes, { name: 'spot-1' })),
          { timeoutMs: 20_000, describe: () => child.output() },
        );
        expect(cond).to.include({
          status: 'True',
          reason: 'TerminationRequested',
          message: 'The cloud provider has marked this instance for termination',
        });
        expect(child.process.exitCode, 'stays up after marking').to.equal(null);
        child.process.kill('SIGTERM');
        expect(await child.exited).to.equal(0);
      } finally {
        child.process.kill('SIGKILL');
      }
    });
  });

  describe('in-process', () => {
    const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, signals = new Signals()) => {
      const errors = new PassThrough();
      let text = '';
      errors.on('data', (c: Buffer) => (text += c.toString()));
      const logStream = new PassThrough();
      let logs = '';
      logStream.on('data', (c: Buffer) => (logs += c.toString()));
      const code = runTerminationHandlerBinary({
        args,
        env: { ...UNUSED, KUBECONFIG: kubeconfig, ...extraEnv },
        signals,
        logStream,
        errorStream: errors,
      });
      return { code, errors: () => text, logs: () => logs, signals };
    };

    it('marks a GCE Node Terminating when its preemption begins, through the metadata host it was given', async () => {
      const emu: GceEmulator = await startGceEmulator({ bootDelayMs: 10 });
      const c = clientsFor(emu);
      try {
        await waitDone(c, await insert(c, 'preemptible-1', { scheduling: { provisioningModel: 'SPOT' } }));
        await registerNode('preemptible-1', 'gce://test-project/us-central1-a/preemptible-1');
        const h = run(['--v=3', '--node-name=preemptible-1', '--poll-interval-seconds=1'], {
          GCE_METADATA_HOST: await emu.metadataHost('preemptible-1'),
        });
        await eventually(
          'the handler asking the metadata server',
          async () => emu.metadataRequestCount('preemptible-1') >= 1,
        );
        emu.preempt('preemptible-1');
        const cond = await eventually('Terminating=True on the node', async () =>
          terminating(await client.get(Nodes, { name: 'preemptible-1' })),
        );
        expect(cond?.reason).to.equal('TerminationRequested');
        h.signals.send('SIGTERM');
        expect(await h.code).to.equal(0);
      } finally {
        await closeClients(c);
        await emu.stop();
      }
    });

    it('on an IBM Cloud Node says there is nothing to watch and stays up, idle, until SIGTERM', async () => {
      await registerNode('ibm-1', 'ibm://acct/us-south/us-south-1/worker/0717_abc');
      const h = run(['--node-name=ibm-1', '--poll-interval-seconds=1', '--logging-format=json']);
      let done = false;
      void h.code.then(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done, 'a DaemonSet restarts a container that exits').to.equal(false);
      h.signals.send('SIGTERM');
      expect(await h.code).to.equal(0);
      const lines = h
        .logs()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => l.msg)).to.include('no termination notices on this cloud; idle until stopped');
      expect(lines[0]).to.deep.include({ component: 'termination-handler', v: 0 });
      expect(terminating(await client.get(Nodes, { name: 'ibm-1' }))).to.equal(undefined);
    });

    it('refuses to start without --node-name, naming the flag', async () => {
      const h = run(['--logtostderr=true', '--v=3']);
      expect(await h.code).to.equal(2);
      expect(h.errors()).to.contain('--node-name is required');
    });

    it('refuses a poll interval that is not a positive integer, naming the flag', async () => {
      const h = run(['--node-name=n', '--poll-interval-seconds=0']);
      expect(await h.code).to.equal(2);
      expect(h.errors()).to.contain('--poll-interval-seconds must be an integer >= 1');
    });

    it('refuses malformed metadata endpoints, naming the variable', async () => {
      const aws = run(['--node-name=n'], { AWS_EC2_METADATA_SERVICE_ENDPOINT: '169.254.169.254' });
      expect(await aws.code).to.equal(1);
      expect(aws.errors()).to.contain('AWS_EC2_METADATA_SERVICE_ENDPOINT must be an http(s) URL');
      const gce = run(['--node-name=n'], { GCE_METADATA_HOST: 'http://127.0.0.1:1' });
      expect(await gce.code).to.equal(1);
      expect(gce.errors()).to.contain('GCE_METADATA_HOST');
    });
  });
});
