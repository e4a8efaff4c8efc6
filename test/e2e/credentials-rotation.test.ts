// `npm start` (AWS) end to end with the credentials a user would get wrong: the EC2 emulator checks every
// request's signature with the keys it knows, so a wrong key in the credentials Secret gives EC2's own
// AuthFailure, a Warning event naming the Secret, and recovery on the reconcile after the Secret is fixed
// with kubectl. Also what endpoints.json tells about the running environment: the emulator's admin endpoint
// and each controller binary's pid, kept current when a binary restarts.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_ACCESS_KEY } from '../../sim/aws/index.js';
import { hasKubectl, kubectlOutput } from './support/kubectl.js';
import { eventually, LocalProcess, processRunning, repo } from './support/local-process.js';

const ns = 'openshift-machine-api';
const machineSet = 'worker-us-east-1a';
const secret = 'aws-cloud-credentials';

interface EndpointsJson {
  cloud: { aws: { endpoint: string; admin: string } };
  binaries: Array<{ name: string; pid?: number }>;
}

interface EventJson {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

describe('machine-api-local (npm start): a wrong key in the credentials Secret, fixed with kubectl', function () {
  this.timeout(240_000);
  let stateDir: string;
  let kubeconfig: string;
  let local: LocalProcess | undefined;

  const kubectl = (args: string[]): Promise<string> => kubectlOutput(kubeconfig, args);
  const endpoints = () => JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8')) as EndpointsJson;
  const machines = async () =>
    (
      JSON.parse(await kubectl(['get', 'machines', '-n', ns, '-o', 'json'])) as {
        items: Array<{ metadata: { name: string }; status?: { phase?: string } }>;
      }
    ).items;
  const running = (n: number) =>
    eventually(`${n} Running machines`, async () => {
      const ms = await machines();
      return ms.length === n && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
    });

  before(function () {
    if (!hasKubectl()) this.skip();
    stateDir = mkdtempSync(join(tmpdir(), 'machine-api-local-credentials-'));
    kubeconfig = join(stateDir, 'kubeconfig');
  });
  after(async () => {
    if (local && local.child.exitCode === null) await local.terminate().catch(() => local?.child.kill('SIGKILL'));
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('publishes the admin endpoint, which knows the sample Secret’s key, and every binary’s pid', async () => {
    local = new LocalProcess(stateDir);
    await local.ready();
    await running(3);
    const ep = endpoints();
    expect(ep.cloud.aws.admin).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listed = (await (await fetch(`${ep.cloud.aws.admin}/credentials`)).json()) as { items: unknown[] };
    expect(listed.items).to.deep.equal([{ accessKeyId: EMULATOR_ACCESS_KEY.accessKeyId }]);
    expect(ep.binaries.map((b) => b.name).sort()).to.deep.equal([...local.binaryPids().keys()].sort());
    for (const b of ep.binaries) expect(b.pid, b.name).to.equal(local.binaryPids().get(b.name));
  });

  it('keeps a binary’s pid in endpoints.json current when it is killed and started again', async () => {
    const before = endpoints().binaries.find((b) => b.name === 'machineset-controller')!.pid!;
    process.kill(before, 'SIGKILL');
    const after = await eventually('a new pid for machineset-controller', () => {
      const pid = endpoints().binaries.find((b) => b.name === 'machineset-controller')?.pid;
      return Promise.resolve(pid !== undefined && pid !== before && processRunning(pid) ? pid : undefined);
    });
    expect(processRunning(before)).to.equal(false);
    expect(after).to.not.equal(before);
  });

  it('a wrong access key gives EC2’s AuthFailure in a Warning naming the Secret, and no instance', async () => {
    await kubectl([
      'patch',
      'secret',
      secret,
      '-n',
      ns,
      '--type=merge',
      '-p',
      JSON.stringify({ stringData: { aws_access_key_id: 'AKIAWRONGKEY00000000' } }),
    ]);
    await kubectl(['scale', 'machineset', machineSet, '-n', ns, '--replicas=4']);
    const warning = await eventually('a FailedCreate Warning naming the credentials Secret', async () => {
      const events = (JSON.parse(await kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as { items: EventJson[] })
        .items;
      return events.find(
        (e) =>
          e.type === 'Warning' &&
          e.reason === 'FailedCreate' &&
          e.involvedObject.kind === 'Machine' &&
          e.message.includes('AuthFailure') &&
          e.message.includes(`${ns}/${secret}`),
      );
    });
    expect(warning.message).to.not.contain('AKIAWRONGKEY', 'credentials are never in events');
    const waiting = (await machines()).filter((m) => m.status?.phase !== 'Running');
    expect(waiting.map((m) => m.metadata.name)).to.deep.equal([warning.involvedObject.name]);
  });

  it('goes on once the Secret is fixed with kubectl apply of the sample', async () => {
    await kubectl(['apply', '-f', join(repo, 'manifests', 'samples', 'aws', '00-credentials-secret.yaml')]);
    await running(4);
  });
});
