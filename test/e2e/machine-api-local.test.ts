// `npm start` end to end: machine-api-local as a child process, driven only through kubectl with the
// kubeconfig it writes and the EC2 API at the endpoint it publishes; then SIGTERM and a restart on the same state.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasKubectl, kubectlOutput } from './support/kubectl.js';
import { liveInstances } from './support/local-ec2.js';
import { eventually, LocalProcess, processRunning } from './support/local-process.js';
import { parseKlogLines } from '../lib/base/support/klog-lines.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const ns = 'openshift-machine-api';
const machineSet = 'worker-us-east-1a';

interface MachineJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { providerID?: string };
  status?: { phase?: string; nodeRef?: { name: string } };
}

describe('machine-api-local (npm start) end to end', function () {
  this.timeout(240_000);
  let stateDir: string;
  let kubeconfig: string;
  let local: LocalProcess | undefined;

  const kubectl = (args: string[]): Promise<string> => kubectlOutput(kubeconfig, args);

  async function machines(): Promise<MachineJson[]> {
    return (JSON.parse(await kubectl(['get', 'machines', '-n', ns, '-o', 'json'])) as { items: MachineJson[] }).items;
  }

  /** Resolves when exactly n machines are Running with a node that exists, none being deleted. */
  async function runningMachines(n: number): Promise<MachineJson[]> {
    return eventually(`${n} Running machines with nodes`, async () => {
      const ms = await machines();
      if (
        ms.length !== n ||
        !ms.every((m) => m.status?.phase === 'Running' && m.status.nodeRef && !m.metadata.deletionTimestamp)
      )
        return undefined;
      const nodes = (
        JSON.parse(await kubectl(['get', 'nodes', '-o', 'json'])) as { items: Array<{ metadata: { name: string } }> }
      ).items.map((x) => x.metadata.name);
      return ms.every((m) => nodes.includes(m.status!.nodeRef!.name)) ? ms : undefined;
    });
  }

  const liveInstanceIds = async (): Promise<string[]> =>
    (await liveInstances(stateDir)).map((i) => i.InstanceId!).sort();

  const instanceIdOf = (m: MachineJson) => m.spec?.providerID?.split('/').pop();

  before(function () {
    if (!hasKubectl()) this.skip();
    stateDir = mkdtempSync(join(tmpdir(), 'machine-api-local-e2e-'));
    kubeconfig = join(stateDir, 'kubeconfig');
  });

  after(async () => {
    if (local && local.child.exitCode === null) local.child.kill('SIGKILL');
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  let beforeRestart: MachineJson[] = [];
  let firstEndpoints: { apiServer: string; cloud: { aws: { endpoint: string } } } | undefined;
  const readEndpoints = () =>
    JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8')) as NonNullable<typeof firstEndpoints> & {
      binaries: Array<{ name: string; command: string[] }>;
    };

  it('starts with the sample MachineSet: 3 machines reach Running with nodes, and the state dir holds a private kubeconfig and endpoints.json', async () => {
    local = new LocalProcess(stateDir);
    await local.ready();
    expect(statSync(kubeconfig).mode & 0o777).to.equal(0o600);
    const endpoints = JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8')) as Record<string, unknown>;
    expect(endpoints).to.include({ kubeconfig, provider: 'aws' });
    expect(endpoints.apiServer).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((endpoints.cloud as { aws: { endpoint: string; region: string } }).aws).to.include({ region: 'us-east-1' });
    expect(local.stdout).to.contain(`Try: KUBECONFIG=${kubeconfig} kubectl get machines -A`);
    const ms = await runningMachines(3);
    expect(ms.map(instanceIdOf).sort()).to.deep.equal(await liveInstanceIds());
    firstEndpoints = readEndpoints();
  });

  it('runs each controller binary as its own process from the compiled sources, each with its log in the state dir', () => {
    const pids = local!.binaryPids();
    expect([...pids.keys()].sort()).to.deep.equal([
      'machine-api-provider-aws',
      'machine-healthcheck',
      'machineset-controller',
      'nodelink-controller',
    ]);
    for (const pid of pids.values()) expect(processRunning(pid)).to.equal(true);
    const binaries = readEndpoints().binaries;
    for (const b of binaries)
      expect(b.command[1], b.name).to.match(/\/\.tmp\/compiled\/[0-9a-f]{16}\/cmd\/[a-z-]+\.js$/);
    expect(readdirSync(join(stateDir, 'logs')).sort()).to.deep.equal([...pids.keys()].map((n) => `${n}.log`).sort());
    expect(parseKlogLines(readFileSync(join(stateDir, 'logs', 'machine-api-provider-aws.log'), 'utf8'))).to.not.be
      .empty;
  });

  it('refuses a second start on the same state dir, naming the running one, and leaves its kubeconfig alone', async () => {
    const kubeconfigBefore = readFileSync(kubeconfig, 'utf8');
    const second = new LocalProcess(stateDir);
    const code = await second.exited;
    expect(code).to.equal(1);
    expect(second.stderr)
      .to.contain(`is in use by machine-api-local pid ${local!.child.pid} (provider aws`)
      .and.contain('--state-dir');
    expect(readFileSync(kubeconfig, 'utf8')).to.equal(kubeconfigBefore);
    expect(await machines()).to.have.length(3);
  });

  it('scales the MachineSet to 5 with kubectl scale: 5 machines Running', async () => {
    await kubectl(['scale', 'machineset', machineSet, '-n', ns, '--replicas=5']);
    const ms = await runningMachines(5);
    expect(ms.map(instanceIdOf).sort()).to.deep.equal(await liveInstanceIds());
  });

  it('replaces a machine deleted with kubectl delete, and terminates its instance', async () => {
    const [victim] = await machines();
    await kubectl(['delete', 'machine', victim!.metadata.name, '-n', ns]);
    const ms = await eventually('a replacement machine', async () => {
      const now = await runningMachines(5);
      return now.some((m) => m.metadata.name === victim!.metadata.name) ? undefined : now;
    });
    const live = await liveInstanceIds();
    expect(live).to.not.include(instanceIdOf(victim!));
    expect(ms.map(instanceIdOf).sort()).to.deep.equal(live);
    beforeRestart = ms;
  });

  it('runs a Pod bound to a Node until kubectl wait sees it Ready, and kubectl get nodes shows the kubelet VERSION', async () => {
    const [m] = await runningMachines(5);
    const node = m!.status!.nodeRef!.name;
    const manifest = join(stateDir, 'pod.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default' },
        spec: { nodeName: node, containers: [{ name: 'web', image: 'registry.example/web:1' }] },
      }),
    );
    await kubectl(['apply', '-f', manifest]);
    expect(await kubectl(['wait', '--for=condition=Ready', 'pod/web', '-n', 'default', '--timeout=60s'])).to.contain(
      'condition met',
    );
    const table = await kubectl(['get', 'nodes', node]);
    expect(table.split('\n')[0]).to.match(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/);
    expect(table.split('\n')[1]).to.match(/\sReady\s.*\sv1\.\d+\.\d+$/);
    await kubectl(['delete', 'pod', 'web', '-n', 'default']);
  });

  it('exits 0 within 10 s of SIGTERM', async () => {
    const { code, ms } = await local!.terminate();
    expect(code, local!.stderr).to.equal(0);
    expect(ms).to.be.below(10_000);
    expect(local!.stdout).to.contain('stopped');
  });

  it('refuses another provider on the state dir, naming the recorded provider and the flags to choose', async () => {
    const gcp = new LocalProcess(stateDir, ['--provider', 'gcp']);
    expect(await gcp.exited).to.equal(1);
    expect(gcp.stderr)
      .to.contain('was made for provider aws, not gcp: run with --provider aws')
      .and.contain('--state-dir');
    expect(existsSync(join(stateDir, 'gcp-emulator'))).to.equal(false);
  });

  it('restarts on the same state dir with the same machines, instances and ports, and creates nothing new', async () => {
    local = new LocalProcess(stateDir);
    await local.ready();
    const endpoints = readEndpoints();
    expect(endpoints.apiServer, 'the API server port of the previous run').to.equal(firstEndpoints!.apiServer);
    expect(endpoints.cloud.aws.endpoint, 'the emulator port of the previous run').to.equal(
      firstEndpoints!.cloud.aws.endpoint,
    );
    const ms = await runningMachines(5);
    const summary = (list: MachineJson[]) => list.map((m) => `${m.metadata.name} ${m.spec?.providerID}`).sort();
    expect(summary(ms)).to.deep.equal(summary(beforeRestart));
    expect(await liveInstanceIds()).to.deep.equal(beforeRestart.map(instanceIdOf).sort());
    expect(local.stdout).to.not.contain('created MachineSet');
  });

  it('leaves no controller binary running when npm start itself is killed outright', async () => {
    const pids = [...local!.binaryPids().values()];
    expect(pids).to.have.length(4);
    local!.child.kill('SIGKILL');
    await local!.exited;
    await eventually(
      'the orphaned binaries to stop',
      () => Promise.resolve(pids.every((pid) => !processRunning(pid)) ? true : undefined),
      20_000,
    );
    expect(existsSync(join(stateDir, 'aws-emulator'))).to.equal(true);
  });
});
