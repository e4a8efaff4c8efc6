// The real kubectl against the local control plane with RBAC on and manifests/rbac applied with kubectl:
// `kubectl auth can-i --as=system:serviceaccount:...` answers what the manifests grant, `kubectl create token`
// mints a token that authenticates as the ServiceAccount, and a request it may not make is kube's Forbidden.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';
import { hasKubectl, runKubectl } from './support/kubectl.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ns = 'openshift-machine-api';
const sa = `system:serviceaccount:${ns}:machine-api-controllers`;

describe('kubectl against the local control plane with RBAC on', function () {
  this.timeout(60_000);
  let cp: ControlPlane;
  let dir: string;
  let kubeconfig: string;

  const kubectl = (args: string[]) => runKubectl(kubeconfig, args, { timeoutMs: 30_000 });
  async function ok(args: string[]): Promise<string> {
    const r = await kubectl(args);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  }
  const canI = async (...args: string[]) => (await kubectl(['auth', 'can-i', ...args, `--as=${sa}`])).stdout.trim();

  before(async function () {
    if (!hasKubectl()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'kubectl-rbac-'));
    kubeconfig = join(dir, 'kubeconfig');
    cp = await startControlPlane({
      crdDirs: [join(repo, 'manifests', 'crds')],
      kubeconfigPath: kubeconfig,
      rbac: true,
    });
    // The namespaces a cluster has and the manifests name.
    await ok(['create', 'namespace', ns]);
    await ok(['create', 'namespace', 'openshift-config-managed']);
    await ok(['apply', '-f', join(repo, 'manifests', 'rbac')]);
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers kubectl auth can-i --as the ServiceAccount from the applied roles', async () => {
    expect(await canI('patch', 'machines/status', '-n', ns)).to.equal('yes');
    expect(await canI('create', 'machines.machine.openshift.io', '-n', ns)).to.equal('yes');
    expect(await canI('delete', 'nodes')).to.equal('yes');
    expect(await canI('delete', 'secrets', '-n', ns)).to.equal('no');
    expect(await canI('create', 'machines.machine.openshift.io', '-n', 'default')).to.equal('no');
    expect(await ok(['auth', 'can-i', '--list', '-n', ns, `--as=${sa}`])).to.match(
      /^machines\.machine\.openshift\.io\/status\s+\[\]\s+\[\]\s+\[patch\]/m,
    );
  });

  it("refuses the ServiceAccount what no role grants, with kube's Forbidden", async () => {
    const r = await kubectl(['get', 'configmaps', '-n', ns, `--as=${sa}`]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain(
      `Error from server (Forbidden): configmaps is forbidden: User "${sa}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
  });

  it('mints a token with kubectl create token that authenticates as the ServiceAccount', async () => {
    const token = (await ok(['create', 'token', 'machine-api-controllers', '-n', ns])).trim();
    const whoami = await ok(['--token', token, 'auth', 'whoami']);
    expect(
      whoami
        .split('\n')
        .find((l) => l.startsWith('Username'))
        ?.split(/\s+/)[1],
    ).to.equal(sa);
    expect(await ok(['--token', token, 'get', 'machines', '-n', ns])).to.equal('');
    const refused = await kubectl(['--token', token, 'delete', 'secret', 'x', '-n', ns]);
    expect(refused.stderr).to.contain(
      `secrets "x" is forbidden: User "${sa}" cannot delete resource "secrets" in API group "" in the namespace "${ns}"`,
    );
  });
});
