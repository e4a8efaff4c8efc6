// A freed private IP reused by a new instance, end to end in the local environment (`npm start` as a
// library: control plane, EC2 emulator, kubelet simulator and every controller in-process). The emulator
// gives a new instance the lowest free private IP, as VPCs do, so after a scale-down the next scale-up's
// instances register Nodes under the names the deleted Machines' Nodes had. A deleted Machine finishes
// (and cleans up its Node) only after its instance has terminated, so by then the name is the new
// Machine's Node's: it must stay, and the new Machine must not be remediated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { Events, MachineSets, Machines, Nodes, sameInstance, type Machine } from '../../lib/index.js';
import { eventually } from '../../sim/kit/index.js';
import { LOCAL_NAMESPACE as ns } from '../../cmd/local/controller-binaries.js';
import { startLocalEnvironment, type LocalEnvironment } from '../../cmd/local/environment.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const machineSet = 'worker-us-east-1a';

describe('a new Machine whose instance reuses a freed private IP (local environment, AWS)', function () {
  this.timeout(180_000);
  let dir: string;
  let env: LocalEnvironment | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mapi-reused-ip-'));
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const machines = async (): Promise<Machine[]> => (await env!.client.list(Machines, { namespace: ns })).items;
  const scale = (replicas: number) =>
    env!.client.patch(
      MachineSets,
      { namespace: ns, name: machineSet },
      { type: 'merge', body: { spec: { replicas } } },
    );

  /** Machines not being deleted, once there are `n`, all Running with a Node that carries their providerID. */
  async function runningWithOwnNodes(n: number): Promise<Machine[]> {
    return eventually(
      `${n} Running machines, each with a Node of its own instance`,
      async () => {
        const live = (await machines()).filter((m) => !m.metadata.deletionTimestamp);
        if (live.length !== n || !live.every((m) => m.status?.phase === 'Running' && m.status.nodeRef?.name))
          return undefined;
        for (const m of live) {
          const node = await env!.client.get(Nodes, { name: m.status!.nodeRef!.name! });
          if (!sameInstance(node.spec?.providerID, m.spec?.providerID) || node.metadata.uid !== m.status!.nodeRef!.uid)
            return undefined;
        }
        return live;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }

  it('keeps the new Machine its Node when the old Machine finishes deleting, and the MachineHealthCheck leaves it alone', async () => {
    // The deleted Machines must still be finishing when the new ones come up. A controller notices a
    // termination within a second or two when idle, but a busy or restarted one takes longer: this one looks
    // at a terminating instance every 20 s, so the new Nodes register inside that gap.
    env = await startLocalEnvironment({
      provider: 'aws',
      stateDir: dir,
      bootDelayMs: 500,
      terminateDelayMs: 1_000,
      logStream: new PassThrough().resume(),
      machineController: { terminationFollow: { firstMs: 20_000, growth: 0, maxMs: 20_000 } },
    });
    await runningWithOwnNodes(3);
    await scale(5);
    const five = await runningWithOwnNodes(5);

    await scale(3);
    const leaving = await eventually(
      'two machines being deleted',
      async () => {
        const ms = (await machines()).filter((m) => m.metadata.deletionTimestamp);
        return ms.length === 2 ? ms : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const freedNames = leaving.map((m) => m.status?.nodeRef?.name).sort();
    const leavingIDs = leaving.map((m) => m.spec?.providerID);
    expect(freedNames.every((n) => five.some((m) => m.status?.nodeRef?.name === n))).to.equal(true);
    // Their private IPs are free once their instances have terminated.
    await eventually(
      "the deleted machines' instances to terminate",
      async () => {
        const insts = env!.cloud
          .instanceView()
          .listInstances()
          .filter((i) => leavingIDs.some((id) => sameInstance(id, i.providerID)));
        return insts.length === 2 && insts.every((i) => i.state === 'terminated');
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    await scale(5);
    const after = await runningWithOwnNodes(5);
    const newcomers = after.filter((m) => !five.some((f) => f.metadata.uid === m.metadata.uid));
    expect(newcomers).to.have.length(2);
    // The scenario itself: the new instances got the freed IPs, hence the old Node names, while the old
    // Machines (whose nodeRefs carry those names) have not finished deleting yet.
    expect(newcomers.map((m) => m.status?.nodeRef?.name).sort()).to.deep.equal(freedNames);
    const stillDeleting = (await machines()).filter((m) => leaving.some((l) => l.metadata.uid === m.metadata.uid));
    expect(
      stillDeleting,
      'the old machines finished deleting before the new Nodes registered: scenario not reproduced',
    ).to.have.length(2);

    await eventually(
      'the old machines to finish deleting',
      async () => {
        const ms = await machines();
        return !ms.some((m) => leaving.some((l) => l.metadata.uid === m.metadata.uid));
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    // Long enough for the MachineHealthCheck to act on a missing Node (it does at once) and for a missing
    // Node to be noticed by everyone watching.
    await new Promise((r) => setTimeout(r, 3_000));

    const remediations = (await env.client.list(Events, { namespace: ns })).items.filter(
      (e) => e.reason === 'MachineDeleted',
    );
    expect(
      remediations.map((e) => e.message),
      'MachineHealthCheck remediations',
    ).to.deep.equal([]);
    const final = await runningWithOwnNodes(5);
    expect(final.map((m) => m.metadata.uid).sort(), 'the Machines after the old ones are gone').to.deep.equal(
      after.map((m) => m.metadata.uid).sort(),
    );
    for (const m of newcomers) {
      const node = await env.client.get(Nodes, { name: m.status!.nodeRef!.name! });
      expect(node.spec?.providerID, m.metadata.name).to.satisfy((id: string) => sameInstance(id, m.spec?.providerID));
    }
  });
});
