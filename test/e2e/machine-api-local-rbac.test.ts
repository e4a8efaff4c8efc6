// `npm start -- --rbac` end to end: machine-api-local as a child process with RBAC on, driven through kubectl.
// The controllers run as the machine-api-controllers ServiceAccount (their kubeconfig says so to kubectl auth
// whoami), a kubectl scale brings Machines to Running with Nodes, and nothing in their logs was refused.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasKubectl, kubectlOutput } from './support/kubectl.js';
import { eventually, LocalProcess } from './support/local-process.js';

const ns = 'openshift-machine-api';
const sa = `system:serviceaccount:${ns}:machine-api-controllers`;

interface MachineJson {
  metadata: { deletionTimestamp?: string };
  status?: { phase?: string; nodeRef?: { name: string } };
}

describe('machine-api-local --rbac (npm start -- --rbac) end to end', function () {
  this.timeout(240_000);
  let stateDir: string;
  let local: LocalProcess | undefined;

  before(async function () {
    if (!hasKubectl()) this.skip();
    stateDir = mkdtempSync(join(tmpdir(), 'machine-api-local-rbac-'));
    local = new LocalProcess(stateDir, ['--rbac']);
    await local.ready();
  });
  after(() => {
    if (local && local.child.exitCode === null) local.child.kill('SIGKILL');
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('runs the controllers as the ServiceAccount, and says so', async () => {
    const endpoints = JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8')) as {
      serviceAccountKubeconfig: string;
    };
    expect(local!.stdout).to.contain('RBAC on');
    const whoami = await kubectlOutput(endpoints.serviceAccountKubeconfig, ['auth', 'whoami']);
    expect(
      whoami
        .split('\n')
        .find((l) => l.startsWith('Username'))
        ?.split(/\s+/)[1],
    ).to.equal(sa);
  });

  it('scales the MachineSet to 4 with kubectl scale: 4 Machines Running with Nodes, and no request refused', async () => {
    const kubeconfig = join(stateDir, 'kubeconfig');
    await kubectlOutput(kubeconfig, ['scale', 'machineset', 'worker-us-east-1a', '-n', ns, '--replicas=4']);
    await eventually('4 Running Machines with Nodes', async () => {
      const ms = (
        JSON.parse(await kubectlOutput(kubeconfig, ['get', 'machines', '-n', ns, '-o', 'json'])) as {
          items: MachineJson[];
        }
      ).items;
      return ms.length === 4 &&
        ms.every((m) => m.status?.phase === 'Running' && m.status.nodeRef && !m.metadata.deletionTimestamp)
        ? ms
        : undefined;
    });
    const logs = readdirSync(join(stateDir, 'logs'));
    expect(logs).to.include.members([
      'machine-api-provider-aws.log',
      'machineset-controller.log',
      'nodelink-controller.log',
      'machine-healthcheck.log',
    ]);
    for (const log of logs) expect(readFileSync(join(stateDir, 'logs', log), 'utf8'), log).to.not.contain('forbidden');
  });

  it('exits 0 on SIGTERM', async () => {
    const { code } = await local!.terminate();
    expect(code, local!.stderr).to.equal(0);
  });
});
