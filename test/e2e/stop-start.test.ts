// The README's recipe for a NotReady Node, end to end in the local environment (`npm start` as a library,
// with the samples: a MachineSet of 3 and the MachineHealthCheck of manifests/samples/aws): `aws ec2
// stop-instances` turns the Node's Ready Unknown, `aws ec2 start-instances` brings it back. Through the stop
// and the restart the Node object stays, as on a cluster, so the MachineHealthCheck (which replaces a Machine
// whose Node is missing at once) leaves the Machine alone: the same Machine, on the same instance, Ready again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { Events, Machines, Nodes, sameInstance, type Machine, type Secret } from '../../lib/index.js';
import { eventually } from '../../sim/kit/index.js';
import { LOCAL_NAMESPACE as ns } from '../../cmd/local/controller-binaries.js';
import { startLocalEnvironment, type LocalEnvironment } from '../../cmd/local/environment.js';
import { readSampleFile } from '../../cmd/local/samples.js';
import { repo } from './support/local-process.js';
import { awsCli, hasAwsCli, type AwsCliKeys } from './support/aws-cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

interface StateChanges {
  [list: string]: { InstanceId: string; CurrentState: { Name: string } }[];
}

/** The keys of the sample credentials Secret, which the README's aws commands use. */
function sampleKeys(): AwsCliKeys {
  const [sample] = readSampleFile(join(repo, 'manifests', 'samples', 'aws', '00-credentials-secret.yaml'));
  const data = (sample!.object as Secret).stringData ?? {};
  return { accessKeyId: data.aws_access_key_id!, secretAccessKey: data.aws_secret_access_key! };
}

describe('stopping and starting a Machine’s instance with the aws CLI (local environment, AWS samples)', function () {
  this.timeout(120_000);
  let dir: string;
  let env: LocalEnvironment | undefined;

  before(function () {
    if (!hasAwsCli()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'mapi-stop-start-'));
  });
  after(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const readyOf = async (name: string) => {
    const node = await env!.client.get(Nodes, { name });
    return { uid: node.metadata.uid, ready: node.status?.conditions?.find((c) => c.type === 'Ready')?.status };
  };

  it('keeps the Machine and its Node: Ready Unknown while stopped, Ready again once started, nothing remediated', async () => {
    env = await startLocalEnvironment({
      provider: 'aws',
      stateDir: dir,
      bootDelayMs: 300,
      terminateDelayMs: 0,
      logStream: new PassThrough().resume(),
    });
    const machine = await eventually(
      'a Running Machine of the sample MachineSet with its Node Ready',
      async () => {
        const { items } = await env!.client.list(Machines, { namespace: ns });
        const m = items.find((i) => i.status?.phase === 'Running' && i.status.nodeRef?.name);
        if (!m || (await readyOf(m.status!.nodeRef!.name!)).ready !== 'True') return undefined;
        return m;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const nodeName = machine.status!.nodeRef!.name!;
    const node = await readyOf(nodeName);
    const instanceId = machine.spec!.providerID!.split('/').at(-1)!;
    // As the README does it: the emulator's endpoint from endpoints.json, the sample Secret's keys.
    const endpoint = (JSON.parse(readFileSync(env.endpointsPath, 'utf8')) as { cloud: { aws: { endpoint: string } } })
      .cloud.aws.endpoint;
    const ec2 = (command: string) =>
      awsCli<StateChanges>(endpoint, sampleKeys(), [
        'ec2',
        command,
        '--region',
        'us-east-1',
        '--instance-ids',
        instanceId,
      ]);

    const stopped = await ec2('stop-instances');
    expect(stopped.StoppingInstances?.map((i) => i.InstanceId)).to.deep.equal([instanceId]);
    await eventually(
      'the Node to turn Ready Unknown',
      async () => ((await readyOf(nodeName)).ready === 'Unknown' ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await eventually(
      'the instance to stop',
      async () => {
        const insts = env!.cloud.instanceView().listInstances();
        return insts.some((i) => sameInstance(i.providerID, machine.spec?.providerID) && i.state === 'stopped')
          ? true
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect((await readyOf(nodeName)).uid, 'the Node of the stopped instance').to.equal(node.uid);

    const started = await ec2('start-instances');
    expect(started.StartingInstances?.map((i) => i.CurrentState.Name)).to.deep.equal(['pending']);
    await eventually(
      'the Node to be Ready again',
      async () => ((await readyOf(nodeName)).ready === 'True' ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect((await readyOf(nodeName)).uid, 'the same Node object through the stop and start').to.equal(node.uid);
    // The MachineHealthCheck replaced the Machine 1–2 s after its Node went missing; give it that long.
    await new Promise((r) => setTimeout(r, 2_000));

    const after: Machine = await env.client.get(Machines, { namespace: ns, name: machine.metadata.name! });
    expect(after.metadata.uid).to.equal(machine.metadata.uid);
    expect(after.metadata.deletionTimestamp, 'the Machine is not being deleted').to.equal(undefined);
    expect(after.spec?.providerID).to.satisfy((id: string) => sameInstance(id, machine.spec?.providerID));
    expect(after.status?.phase).to.equal('Running');
    expect(after.status?.nodeRef?.uid).to.equal(node.uid);
    const remediations = (await env.client.list(Events, { namespace: ns })).items.filter(
      (e) => e.reason === 'MachineDeleted',
    );
    expect(
      remediations.map((e) => e.message),
      'MachineHealthCheck remediations',
    ).to.deep.equal([]);
  });
});
