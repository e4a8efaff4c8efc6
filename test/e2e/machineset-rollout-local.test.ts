// A MachineSet rollout through `npm start` (aws), driven as an admin would: kubectl annotate the sample MachineSet
// with RollingUpdate, kubectl patch its instance type, kubectl wait for its UpToDate condition; the EC2 emulator,
// asked through the real SDK, then runs only instances of the new type.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasKubectl, kubectlOutput, runKubectl } from './support/kubectl.js';
import { liveInstances } from './support/local-ec2.js';
import { eventually, LocalProcess } from './support/local-process.js';

const ns = 'openshift-machine-api';
const machineSet = 'machineset/worker-us-east-1a';

describe('MachineSet rollout with kubectl against npm start (aws)', function () {
  this.timeout(300_000);
  let stateDir: string;
  let kubeconfig: string;
  let local: LocalProcess | undefined;
  const kubectl = (args: string[], timeoutMs?: number) => kubectlOutput(kubeconfig, args, { timeoutMs });

  const liveInstanceTypes = async (): Promise<string[]> =>
    (await liveInstances(stateDir)).map((i) => i.InstanceType ?? '').sort();

  before(async function () {
    if (!hasKubectl()) this.skip();
    stateDir = mkdtempSync(join(tmpdir(), 'machineset-rollout-e2e-'));
    kubeconfig = join(stateDir, 'kubeconfig');
    local = new LocalProcess(stateDir);
    await local.ready();
    await eventually('3 Running machines', async () => {
      const out = await kubectl(['get', 'machines', '-n', ns, '-o', 'jsonpath={.items[*].status.phase}']);
      return out.split(' ').filter((p) => p === 'Running').length === 3 ? true : undefined;
    });
  });

  after(async () => {
    if (local && local.child.exitCode === null) {
      local.child.kill('SIGTERM');
      await Promise.race([local.exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (local.child.exitCode === null) local.child.kill('SIGKILL');
    }
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('refuses a rollout annotation it cannot use, naming it', async () => {
    const r = await runKubectl(kubeconfig, [
      'annotate',
      '-n',
      ns,
      machineSet,
      'machine.openshift.io/rollout-strategy=RollingUpdate',
      'machine.openshift.io/rollout-max-surge=0',
    ]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain(
      'metadata.annotations[machine.openshift.io/rollout-max-unavailable]: Invalid value: "0": may not be 0 when machine.openshift.io/rollout-max-surge is 0',
    );
  });

  it('replaces the sample workers with the new instance type once annotated RollingUpdate and patched', async () => {
    expect(await liveInstanceTypes()).to.deep.equal(['m6i.xlarge', 'm6i.xlarge', 'm6i.xlarge']);
    await kubectl(['annotate', '-n', ns, machineSet, 'machine.openshift.io/rollout-strategy=RollingUpdate']);
    await kubectl(['wait', '-n', ns, machineSet, '--for=condition=UpToDate', '--timeout=60s'], 70_000);
    await kubectl([
      'patch',
      '-n',
      ns,
      machineSet,
      '--type=merge',
      '-p',
      '{"spec":{"template":{"spec":{"providerSpec":{"value":{"instanceType":"m6i.2xlarge"}}}}}}',
    ]);
    // The patch is seen at once; wait for the rollout to start before waiting for it to end.
    await kubectl(['wait', '-n', ns, machineSet, '--for=condition=UpToDate=False', '--timeout=60s'], 70_000);
    await kubectl(['wait', '-n', ns, machineSet, '--for=condition=UpToDate', '--timeout=240s'], 250_000);

    const described = await kubectl(['describe', '-n', ns, machineSet]);
    expect(described).to.match(/Up To Date|UpToDate/);
    expect(described).to.contain('RollingUpdate');
    const types = await eventually('only new instances running', async () => {
      const t = await liveInstanceTypes();
      return t.length === 3 ? t : undefined;
    });
    expect(types).to.deep.equal(['m6i.2xlarge', 'm6i.2xlarge', 'm6i.2xlarge']);
    const labels = await kubectl([
      'get',
      'machines',
      '-n',
      ns,
      '-o',
      'jsonpath={.items[*].metadata.labels.machine\\.openshift\\.io/template-hash}',
    ]);
    expect(new Set(labels.split(' ')).size).to.equal(1);
    // npm start's change log (--no-tty) followed the rollout.
    expect(local!.stdout).to.match(
      /machineset openshift-machine-api\/worker-us-east-1a: .*, up to date RollingUpdate\n/,
    );
    expect(local!.stdout).to.match(/machineset openshift-machine-api\/worker-us-east-1a: .*, up to date yes\n/);
  });
});
