// `npm start -- --rbac` as a library: the control plane authorizes every request with RBAC, manifests/rbac is
// applied, and every controller binary runs as the machine-api-controllers ServiceAccount of the provider's
// Deployment. With the manifests as shipped the whole flow works (no request refused); with one rule taken
// out of a copy, the controller that needs it is refused with kube's 403, and says so in its log.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { parseAllDocuments, stringify } from 'yaml';
import { MachineSets, Machines } from '../../lib/index.js';
import type { RecordedRequest } from '../../sim/apiserver/index.js';
import { eventually, waitForMachines } from '../../sim/kit/index.js';
import { binariesOf } from '../../cmd/local/controller-binaries.js';
import { startLocalEnvironment, type LocalEnvironment } from '../../cmd/local/environment.js';
import { localProvider } from '../../cmd/local/providers.js';
import { repoRoot } from '../../cmd/local/repo-root.js';
import { parseKlogLines } from '../lib/base/support/klog-lines.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const NS = 'openshift-machine-api';
const SA_USER = 'system:serviceaccount:openshift-machine-api:machine-api-controllers';
const SET = 'worker-us-east-1a';

/** A log sink that keeps what it is given, to search the controllers' log lines. */
function capturedLog(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

describe('the local environment with --rbac', function () {
  this.timeout(180_000);
  const binaries = binariesOf(localProvider('aws')).map((b) => b.name);

  describe('with manifests/rbac as shipped', () => {
    let dir: string;
    let env: LocalEnvironment | undefined;
    const log = capturedLog();
    const requests: RecordedRequest[] = [];

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mapi-local-rbac-'));
      env = await startLocalEnvironment({
        provider: 'aws',
        stateDir: dir,
        bootDelayMs: 200,
        terminateDelayMs: 0,
        rbac: true,
        logStream: log.stream,
        onRequest: (r) => {
          if (r.userAgent && binaries.includes(r.userAgent)) requests.push(r);
        },
      });
    });
    after(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("runs every binary as the Deployment's ServiceAccount, with a kubeconfig of its own", () => {
      expect(env!.endpoints.serviceAccountKubeconfig).to.be.a('string');
      for (const b of env!.endpoints.binaries)
        expect(b.command).to.include(`--kubeconfig=${env!.endpoints.serviceAccountKubeconfig}`);
      expect(readFileSync(env!.endpoints.serviceAccountKubeconfig!, 'utf8')).to.not.include(env!.controlPlane.token);
    });

    it('brings the sample MachineSet to Running Machines with Nodes, scales it to 4 and back to 2, and no request is refused', async () => {
      const client = env!.client;
      await waitForMachines(client, { namespace: NS, count: 3, phase: 'Running', timeoutMs: 90_000, intervalMs: 200 });
      await client.patch(MachineSets, { namespace: NS, name: SET }, { type: 'merge', body: { spec: { replicas: 4 } } });
      const machines = await waitForMachines(client, {
        namespace: NS,
        count: 4,
        phase: 'Running',
        timeoutMs: 90_000,
        intervalMs: 200,
      });
      await eventually(
        'every Machine linked to its Node',
        async () => {
          const ms = (await client.list(Machines, { namespace: NS })).items;
          return ms.length === 4 && ms.every((m) => m.status?.nodeRef?.name) ? ms : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(machines).to.have.length(4);
      // Down to 2: the deletes drain (cordon, list pods), terminate the instances and remove the finalizers.
      await client.patch(MachineSets, { namespace: NS, name: SET }, { type: 'merge', body: { spec: { replicas: 2 } } });
      await eventually(
        '2 Machines left',
        async () => {
          const ms = (await client.list(Machines, { namespace: NS })).items;
          return ms.length === 2 ? ms : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      const users = new Set(requests.map((r) => r.user));
      expect([...users]).to.deep.equal([SA_USER]);
      for (const b of binaries)
        expect(
          requests.some((r) => r.userAgent === b),
          `requests by ${b}`,
        ).to.equal(true);
      expect(log.text()).to.not.include('is forbidden');
      expect(log.text()).to.not.include('API request forbidden');
    });
  });

  describe('with one rule removed from a copy of manifests/rbac', () => {
    let dir: string;
    let env: LocalEnvironment | undefined;
    const log = capturedLog();

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mapi-local-rbac-missing-'));
      const rbacDir = join(dir, 'rbac');
      cpSync(join(repoRoot(), 'manifests', 'rbac'), rbacDir, { recursive: true });
      // The machineset-controller's right to create Machines: nobody else holds it.
      const file = join(rbacDir, '0000_30_machine-api_02_machineset-rbac.yaml');
      const docs = parseAllDocuments(readFileSync(file, 'utf8')).map(
        (d) => d.toJS() as { kind: string; rules?: Array<{ resources: string[]; verbs: string[] }> },
      );
      const role = docs.find((d) => d.kind === 'Role')!;
      const rule = role.rules!.find((r) => r.resources.includes('machines'))!;
      rule.verbs = rule.verbs.filter((v) => v !== 'create');
      writeFileSync(file, docs.map((d) => stringify(d)).join('---\n'));
      env = await startLocalEnvironment({
        provider: 'aws',
        stateDir: join(dir, 'state'),
        bootDelayMs: 200,
        terminateDelayMs: 0,
        rbac: true,
        rbacManifestDirs: [rbacDir],
        logStream: log.stream,
      });
    });
    after(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("refuses the machineset-controller's create of a Machine with kube's 403, in that controller's log, and makes no Machine", async () => {
      const message = `machines.machine.openshift.io is forbidden: User "${SA_USER}" cannot create resource "machines" in API group "machine.openshift.io" in the namespace "${NS}"`;
      const line = await eventually(
        'the 403 in the log',
        () =>
          Promise.resolve(
            parseKlogLines(log.text()).find(
              (l) =>
                l.fields.component === 'machineset-controller' &&
                typeof l.fields.err === 'string' &&
                l.fields.err.includes(message),
            ),
          ),
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(line.severity).to.equal('E');
      expect((await env!.client.list(Machines, { namespace: NS })).items).to.deep.equal([]);
      // The control plane reports every refusal too, whether or not the controller logs it.
      expect(parseKlogLines(log.text()).map((l) => l.msg)).to.include('API request forbidden');
    });
  });

  describe('with each binary in its own process (--controllers processes)', () => {
    let dir: string;
    let env: LocalEnvironment | undefined;
    const log = capturedLog();

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mapi-local-rbac-processes-'));
      env = await startLocalEnvironment({
        provider: 'aws',
        stateDir: dir,
        bootDelayMs: 200,
        terminateDelayMs: 0,
        rbac: true,
        controllers: 'processes',
        logStream: log.stream,
      });
    });
    after(async () => {
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('brings Machines to Running as the ServiceAccount, starts a killed binary again with a new token, which then scales the set', async () => {
      const client = env!.client;
      await waitForMachines(client, { namespace: NS, count: 3, phase: 'Running', timeoutMs: 120_000, intervalMs: 250 });
      const tokenOf = () => readFileSync(env!.endpoints.serviceAccountKubeconfig!, 'utf8');
      const tokenBefore = tokenOf();
      const msc = () => env!.processes!.status().find((b) => b.name === 'machineset-controller')!;
      const pid = await eventually('machineset-controller running', () => Promise.resolve(msc().pid), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      expect(pid).to.be.greaterThan(1);
      process.kill(pid, 'SIGKILL');
      await eventually(
        'machineset-controller started again',
        () => Promise.resolve(msc().starts === 2 && msc().pid !== undefined ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect(msc().pid).to.not.equal(pid);
      expect(tokenOf()).to.not.equal(tokenBefore);
      await client.patch(MachineSets, { namespace: NS, name: SET }, { type: 'merge', body: { spec: { replicas: 4 } } });
      await waitForMachines(client, { namespace: NS, count: 4, phase: 'Running', timeoutMs: 120_000, intervalMs: 250 });
      expect(
        log
          .text()
          .split('\n')
          .filter((l) => l.includes('API request forbidden')),
      ).to.deep.equal([]);
      expect(readFileSync(join(dir, 'logs', 'machineset-controller.log'), 'utf8')).to.include('too few replicas');
    });
  });
});
