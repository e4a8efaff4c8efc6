// Events recorded by our EventRecorder (core/v1, as the controllers write them) seen through both APIs by
// the real clients: `kubectl events` (which reads core/v1), `kubectl get events.v1.events.k8s.io`, and the
// Python client's EventsV1Api. One stored object, the same resourceVersion through both.
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEventRecorder } from '../../lib/client/aggregating-event-recorder.js';
import { Namespaces } from '../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../sim/kit/test-env.js';

const here = dirname(fileURLToPath(import.meta.url));
const python = '/usr/bin/python3';
const ns = 'events-e2e';

function has(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(new Error(err.message));
      else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

// API responses in tests are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('events through core/v1 and events.k8s.io/v1 with kubectl and the Python client', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'events-e2e-'));
    kubeconfig = join(dir, 'kubeconfig');
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig } });
    await env.client.create(Namespaces, { metadata: { name: ns } });
    const rec = createEventRecorder({ client: env.client, component: 'machine-controller', host: 'controller-0' });
    const machine = {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name: 'worker-a', namespace: ns, uid: 'uid-worker-a' },
    };
    for (let i = 0; i < 3; i++) rec.event(machine, 'Warning', 'FailedCreate', 'Create', 'instance quota exceeded');
    rec.event(machine, 'Normal', 'Created', 'Create', 'Created Machine worker-a');
    await rec.flush();
  });
  after(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("kubectl get events.v1.events.k8s.io shows the recorded events with kube's events.k8s.io fields", async function () {
    if (!has('kubectl', ['version', '--client'])) this.skip();
    const viaEvents = await run('kubectl', [
      '--kubeconfig',
      kubeconfig,
      'get',
      'events.v1.events.k8s.io',
      '-A',
      '-o',
      'json',
    ]);
    expect(viaEvents.code, viaEvents.stderr).to.equal(0);
    const items = JSON.parse(viaEvents.stdout).items as Json[];
    const failed = items.find((e) => e.reason === 'FailedCreate');
    expect(failed.apiVersion).to.equal('events.k8s.io/v1');
    expect(failed.note).to.equal('instance quota exceeded');
    expect(failed.regarding).to.include({ kind: 'Machine', name: 'worker-a', uid: 'uid-worker-a' });
    expect(failed.deprecatedSource.component).to.equal('machine-controller');
    expect(failed.deprecatedCount).to.equal(3);
    const viaCore = await run('kubectl', [
      '--kubeconfig',
      kubeconfig,
      'get',
      'events',
      '-n',
      ns,
      failed.metadata.name,
      '-o',
      'json',
    ]);
    expect(JSON.parse(viaCore.stdout).metadata.resourceVersion).to.equal(failed.metadata.resourceVersion);
  });

  it('kubectl events (a core/v1 reader) lists an event written through events.k8s.io/v1 beside the recorded ones', async function () {
    if (!has('kubectl', ['version', '--client'])) this.skip();
    const manifest = join(dir, 'event.yaml');
    execFileSync('sh', ['-c', `cat > ${manifest}`], {
      input: [
        'apiVersion: events.k8s.io/v1',
        'kind: Event',
        `metadata: {name: scheduled, namespace: ${ns}}`,
        'eventTime: "2026-01-01T00:00:00.000000Z"',
        `regarding: {kind: Machine, name: worker-b, namespace: ${ns}}`,
        'reason: Scheduled',
        'note: written through events.k8s.io',
        'type: Normal',
        'action: Schedule',
        'reportingController: e2e/test',
        'reportingInstance: e2e-0',
        '',
      ].join('\n'),
    });
    const applied = await run('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', manifest]);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stdout).to.include('event.events.k8s.io/scheduled created');
    const listed = await run('kubectl', ['--kubeconfig', kubeconfig, 'events', '-n', ns]);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(/Warning\s+FailedCreate\s+Machine\/worker-a\s+instance quota exceeded/);
    expect(listed.stdout).to.match(/Normal\s+Scheduled\s+Machine\/worker-b\s+written through events.k8s.io/);
  });

  it("the Python client's EventsV1Api lists the same objects as its CoreV1Api, converted", async function () {
    if (!has(python, ['-c', 'import kubernetes'])) {
      if (process.env.CI) throw new Error('python3-kubernetes is not installed; .ci/run installs it');
      this.skip();
    }
    const out = await run(python, [join(here, 'python', 'list_events.py'), kubeconfig, ns]);
    expect(out.code, out.stderr).to.equal(0);
    const { eventsV1, coreV1 } = JSON.parse(out.stdout) as { eventsV1: Json[]; coreV1: Json[] };
    const created = eventsV1.find((e) => e.reason === 'Created');
    expect(created).to.include({
      note: 'Created Machine worker-a',
      regarding: 'worker-a',
      reportingController: 'machine-controller',
    });
    expect(eventsV1.map((e) => [e.name, e.resourceVersion])).to.deep.equal(
      coreV1.map((e) => [e.name, e.resourceVersion]),
    );
  });
});
