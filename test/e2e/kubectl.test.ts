// The real kubectl against the local control plane, through the kubeconfig file it writes: apply of
// the Machine API samples, printer columns, scale, patch, label, delete waiting on a finalizer, watch
// and api-resources.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';
import { hasKubectl, runKubectl } from './support/kubectl.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const samples = join(repo, 'manifests', 'samples', 'generic');
const crds = join(repo, 'manifests', 'crds');
const ns = 'openshift-machine-api';

describe('kubectl against the local control plane', function () {
  this.timeout(30000);
  let cp: ControlPlane;
  let dir: string;
  let kubeconfig: string;

  const kubectl = (args: string[], input?: string) => runKubectl(kubeconfig, args, { input });
  async function ok(args: string[], input?: string): Promise<string> {
    const r = await kubectl(args, input);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  }

  before(async function () {
    if (!hasKubectl()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'kubectl-e2e-'));
    kubeconfig = join(dir, 'kubeconfig');
    cp = await startControlPlane({ crdDirs: [crds], kubeconfigPath: kubeconfig });
    await ok(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`);
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes a kubeconfig readable by its owner only', () => {
    expect(statSync(kubeconfig).mode & 0o777).to.equal(0o600);
  });

  it('lists the Machine API kinds in api-resources', async () => {
    const out = await ok(['api-resources', '--api-group=machine.openshift.io']);
    // openshift/api gives Machine and MachineSet no short names.
    expect(out).to.match(/machines\s+machine\.openshift\.io\/v1beta1\s+true\s+Machine/);
    expect(out).to.match(/machinesets\s+machine\.openshift\.io\/v1beta1\s+true\s+MachineSet/);
    expect(out).to.match(
      /machinehealthchecks\s+mhc,mhcs\s+machine\.openshift\.io\/v1beta1\s+true\s+MachineHealthCheck/,
    );
  });

  it('applies the samples and prints them with their printer columns', async () => {
    const out = await ok(['apply', '-f', samples]);
    expect(out).to.contain('machine.machine.openshift.io/generic-worker-0 created');
    expect(out).to.contain('machineset.machine.openshift.io/generic-worker created');
    expect(out).to.contain('machinehealthcheck.machine.openshift.io/generic-worker created');
    const ms = await ok(['get', 'machinesets', '-n', ns]);
    expect(ms.split('\n')[0]).to.match(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AVAILABLE\s+AGE/);
    expect(ms).to.match(/generic-worker\s+2\s+/);
    const again = await ok(['apply', '-f', samples]);
    expect(again).to.contain('machineset.machine.openshift.io/generic-worker unchanged');
  });

  it('rejects an invalid object with the field named', async () => {
    const r = await kubectl(
      ['apply', '-f', '-'],
      `apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata:\n  name: bad\n  namespace: ${ns}\nspec:\n  deletePolicy: Sometimes\n`,
    );
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain(
      'spec.deletePolicy: Unsupported value: "Sometimes": supported values: "Random", "Newest", "Oldest"',
    );
  });

  it("answers kubectl auth can-i and whoami for the control plane's user, who may do everything", async () => {
    expect((await ok(['auth', 'can-i', 'create', 'machines', '-n', ns])).trim()).to.equal('yes');
    expect((await ok(['auth', 'can-i', 'delete', 'nodes'])).trim()).to.equal('yes');
    expect(await ok(['auth', 'whoami']))
      .to.match(/Username\s+system:admin/)
      .and.match(/system:masters/);
    expect(await ok(['auth', 'can-i', '--list', '-n', ns])).to.match(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/m);
    // About another user it can only say no (exit code 1 is kubectl's "no").
    const other = await kubectl(['auth', 'can-i', 'get', 'pods', '--as', 'someone-else']);
    expect(other.stdout.trim()).to.match(/^no - the local control plane authorizes only its own user/);
  });

  it('scales a MachineSet through the scale subresource', async () => {
    await ok(['scale', 'machineset', 'generic-worker', '-n', ns, '--replicas=5']);
    expect(await ok(['get', 'machineset', 'generic-worker', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).to.equal(
      '5',
    );
  });

  it('patches and labels', async () => {
    await ok([
      'patch',
      'machine',
      'generic-worker-0',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"spec":{"providerID":"generic:///i-123"}}',
    ]);
    await ok(['label', 'machine', 'generic-worker-0', '-n', ns, 'e2e=yes']);
    expect(
      await ok(['get', 'machines', '-n', ns, '-l', 'e2e=yes', '-o', 'jsonpath={.items[*].spec.providerID}']),
    ).to.equal('generic:///i-123');
  });

  it('deletes and waits while a finalizer holds the object, finishing when another call removes it', async () => {
    await ok([
      'patch',
      'machine',
      'generic-worker-0',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["machine.machine.openshift.io"]}}',
    ]);
    const deleting = kubectl(['delete', 'machine', 'generic-worker-0', '-n', ns, '--timeout=15s']);
    for (let i = 0; i < 200; i++) {
      const ts = await ok([
        'get',
        'machine',
        'generic-worker-0',
        '-n',
        ns,
        '-o',
        'jsonpath={.metadata.deletionTimestamp}',
      ]);
      if (ts !== '') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await ok([
      'patch',
      'machine',
      'generic-worker-0',
      '-n',
      ns,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    const done = await deleting;
    expect(done.code, done.stderr).to.equal(0);
    expect(done.stdout).to.contain('machine.machine.openshift.io "generic-worker-0" deleted');
    const gone = await kubectl(['get', 'machine', 'generic-worker-0', '-n', ns]);
    expect(gone.stderr).to.contain('machines.machine.openshift.io "generic-worker-0" not found');
  });

  it('watches with get --watch until the request timeout', async () => {
    const child = spawn('kubectl', [
      '--kubeconfig',
      kubeconfig,
      'get',
      'machinesets',
      '-n',
      ns,
      '--watch',
      '--request-timeout=3s',
    ]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; i < 200 && !out.includes('generic-worker'); i++) await new Promise((r) => setTimeout(r, 25));
    await ok(['scale', 'machineset', 'generic-worker', '-n', ns, '--replicas=1']);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).to.equal(0);
    expect(out).to.match(/generic-worker\s+5\s+/);
    expect(out).to.match(/generic-worker\s+1\s+/);
  });
});
