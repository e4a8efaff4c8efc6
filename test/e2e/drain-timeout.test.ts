// A drain that ends, end to end: `npm start` as a child process driven only by real kubectl. A running Machine
// gets machine.openshift.io/drain-timeout=10s (an unreadable value is refused by the validating webhook, naming the
// annotation), a pod on its Node is guarded by a PodDisruptionBudget that can never be met, and the Machine is
// deleted: it is gone within its drain timeout plus the cloud's terminate time, with the DrainTimeout event.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasKubectl, kubectlOutput, runKubectl } from './support/kubectl.js';
import { eventually, LocalProcess } from './support/local-process.js';

const ns = 'openshift-machine-api';

interface MachineJson {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { phase?: string; nodeRef?: { name: string } };
}

describe('drain-timeout end to end (npm start, kubectl)', function () {
  this.timeout(240_000);
  let stateDir: string;
  let kubeconfig: string;
  let local: LocalProcess | undefined;
  const kubectl = (args: string[], input?: string) =>
    input === undefined
      ? kubectlOutput(kubeconfig, args)
      : runKubectl(kubeconfig, args, { input }).then((r) => {
          if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
          return r.stdout;
        });

  before(function () {
    if (!hasKubectl()) this.skip();
    stateDir = mkdtempSync(join(tmpdir(), 'drain-timeout-e2e-'));
    kubeconfig = join(stateDir, 'kubeconfig');
  });

  after(async () => {
    if (local && local.child.exitCode === null) {
      local.child.kill('SIGTERM');
      await Promise.race([local.exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (local.child.exitCode === null) local.child.kill('SIGKILL');
    }
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('deletes a Machine whose drain a PodDisruptionBudget blocks within its 10 s drain timeout, with the DrainTimeout event', async () => {
    local = new LocalProcess(stateDir);
    await local.ready();
    const machine = await eventually('a Running Machine with a Node', async () => {
      const ms = (JSON.parse(await kubectl(['get', 'machines', '-n', ns, '-o', 'json'])) as { items: MachineJson[] })
        .items;
      return ms.find((m) => m.status?.phase === 'Running' && m.status.nodeRef && !m.metadata.deletionTimestamp);
    });
    const name = machine.metadata.name;
    const node = machine.status!.nodeRef!.name;

    const refused = await runKubectl(kubeconfig, [
      'annotate',
      'machine',
      '-n',
      ns,
      name,
      'machine.openshift.io/drain-timeout=half a minute',
    ]);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('metadata.annotations.machine.openshift.io/drain-timeout: Invalid value');
    await kubectl(['annotate', 'machine', '-n', ns, name, 'machine.openshift.io/drain-timeout=10s']);

    await kubectl(['create', 'namespace', 'apps']);
    for (const object of [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'db', namespace: 'apps', labels: { app: 'db' } },
        spec: { nodeName: node, containers: [{ name: 'db', image: 'registry.example/db:1' }] },
      },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'db', namespace: 'apps' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
      },
    ])
      await kubectl(['create', '-f', '-'], JSON.stringify(object));
    await eventually('the pod Running', async () =>
      (await kubectl(['get', 'pod', '-n', 'apps', 'db', '-o', 'jsonpath={.status.phase}'])) === 'Running'
        ? true
        : undefined,
    );

    const started = Date.now();
    await kubectl(['delete', 'machine', '-n', ns, name, '--wait=false']);
    await eventually(
      'the Machine gone',
      async () => {
        const r = await runKubectl(kubeconfig, ['get', 'machine', '-n', ns, name]);
        return r.code !== 0 && r.stderr.includes('NotFound') ? true : undefined;
      },
      120_000,
    );
    const took = Date.now() - started;
    // 10 s of drain, then the emulator terminates at once (--terminate-delay 0s): allow for the
    // controllers' polling and a busy machine, but never the for-ever a blocked drain used to mean.
    expect(took, 'not before the drain timeout').to.be.at.least(9_000);
    expect(took, 'the timeout plus the terminate time').to.be.below(40_000);

    const events = JSON.parse(
      await kubectl(['get', 'events', '-n', ns, '--field-selector', `involvedObject.name=${name}`, '-o', 'json']),
    ) as { items: Array<{ reason: string; type: string; message: string }> };
    const timeout = events.items.find((e) => e.reason === 'DrainTimeout');
    expect(timeout?.type).to.equal('Warning');
    expect(timeout?.message).to.contain(`Node "${node}" drain did not finish within 10s`);
    expect(timeout?.message).to.contain('apps/db (eviction refused by a PodDisruptionBudget');
    // The budget was honoured to the end: the pod was never evicted.
    expect(await kubectl(['get', 'pod', '-n', 'apps', 'db', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).to.equal(
      '',
    );
  });
});
