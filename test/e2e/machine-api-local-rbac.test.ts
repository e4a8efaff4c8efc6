// `npm start -- --rbac` end to end: machine-api-local as a child process with RBAC on, driven through kubectl.
// The controllers run as the machine-api-controllers ServiceAccount (their kubeconfig says so to kubectl auth
// whoami), a kubectl scale brings Machines to Running with Nodes, and nothing in the log was refused.
import { expect } from 'chai';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ns = 'openshift-machine-api';
const sa = `system:serviceaccount:${ns}:machine-api-controllers`;

interface MachineJson {
  metadata: { deletionTimestamp?: string };
  status?: { phase?: string; nodeRef?: { name: string } };
}

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('machine-api-local --rbac (npm start -- --rbac) end to end', function () {
  this.timeout(240_000);
  let stateDir: string;
  let child: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';

  function kubectl(kubeconfig: string, args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 }, (err, out, errText) => {
        if (err) reject(new Error(`kubectl ${args.join(' ')}: ${errText || err.message}`));
        else resolve(out);
      });
    });
  }

  before(async function () {
    if (!hasKubectl()) this.skip();
    stateDir = mkdtempSync(join(tmpdir(), 'machine-api-local-rbac-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'cmd/machine-api-local.ts', '--no-tty', '--rbac', '--state-dir', stateDir, '--boot-delay', '300ms', '--terminate-delay', '0s'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await eventually('machine-api-local to print the kubectl hint', () => {
      if (child!.exitCode !== null) throw new Error(`exited ${child!.exitCode}: ${stderr}`);
      return Promise.resolve(stdout.includes('Try: KUBECONFIG=') ? true : undefined);
    });
  });
  after(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('runs the controllers as the ServiceAccount, and says so', async () => {
    const endpoints = JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8')) as { serviceAccountKubeconfig: string };
    expect(stdout).to.contain('RBAC on');
    const whoami = await kubectl(endpoints.serviceAccountKubeconfig, ['auth', 'whoami']);
    expect(whoami.split('\n').find((l) => l.startsWith('Username'))?.split(/\s+/)[1]).to.equal(sa);
  });

  it('scales the MachineSet to 4 with kubectl scale: 4 Machines Running with Nodes, and no request refused', async () => {
    const kubeconfig = join(stateDir, 'kubeconfig');
    await kubectl(kubeconfig, ['scale', 'machineset', 'worker-us-east-1a', '-n', ns, '--replicas=4']);
    await eventually('4 Running Machines with Nodes', async () => {
      const ms = (JSON.parse(await kubectl(kubeconfig, ['get', 'machines', '-n', ns, '-o', 'json'])) as { items: MachineJson[] }).items;
      return ms.length === 4 && ms.every((m) => m.status?.phase === 'Running' && m.status.nodeRef && !m.metadata.deletionTimestamp) ? ms : undefined;
    });
    expect(readFileSync(join(stateDir, 'controllers.log'), 'utf8')).to.not.contain('forbidden');
  });

  it('exits 0 on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
