import { expect } from 'chai';
import { DeleteGuard, InstanceNotVisibleYetError } from '../../../lib/cloud/delete-guard.js';
import { LaunchLedger } from '../../../lib/cloud/launch-ledger.js';
import { MachineInstanceStateAnnotation, RequeueAfterError, type Machine } from '../../../lib/index.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

const WINDOW = 120_000;

function machine(o: { providerID?: string; state?: string; createdAt?: number } = {}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name: 'm',
      namespace: 'ns',
      uid: 'u1',
      ...(o.createdAt !== undefined ? { creationTimestamp: new Date(o.createdAt).toISOString() } : {}),
      ...(o.state ? { annotations: { [MachineInstanceStateAnnotation]: o.state } } : {}),
    },
    spec: o.providerID ? { providerID: o.providerID } : {},
  };
}

function setup() {
  const clock = new FakeClock();
  const ledger = new LaunchLedger({ clock, windowMs: WINDOW });
  const guard = new DeleteGuard({ clock, ledger, windowMs: WINDOW, isTerminating: (s) => s === 'deleting' });
  return { clock, ledger, guard };
}

const waitOf = (fn: () => void): number => {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(InstanceNotVisibleYetError).and.to.be.instanceOf(RequeueAfterError);
    return (err as RequeueAfterError).requeueAfterMs;
  }
  return -1;
};

describe('DeleteGuard', () => {
  it('lets a Machine that never launched anything go at once', () => {
    const { guard } = setup();
    expect(() => guard.nothingFound(machine(), {})).to.not.throw();
  });

  it('keeps a provisioned Machine (providerID on record) whose instance no read shows, within the window after its launch', () => {
    const { clock, guard } = setup();
    const m = machine({ providerID: 'ibm://x', createdAt: clock.now() });
    const recordedAt = clock.now() + 1_000;
    clock.step(2_000);
    expect(waitOf(() => guard.nothingFound(m, { instanceId: 'i-1', recordedAt }))).to.equal(1_000);
    clock.step(WINDOW - 1_001);
    expect(
      waitOf(() => guard.nothingFound(m, { instanceId: 'i-1', recordedAt })),
      'still within the window of the recorded launch',
    ).to.be.greaterThan(0);
    clock.step(1);
    expect(
      () => guard.nothingFound(m, { instanceId: 'i-1', recordedAt }),
      'window passed, the identity look-up showed nothing',
    ).to.not.throw();
  });

  it('lets the Machine go at once once its instance was seen terminating, in this process or on record', () => {
    const { clock, guard } = setup();
    const m = machine({ providerID: 'ibm://x', createdAt: clock.now() });
    guard.seenTerminating('u1');
    expect(guard.terminationSeen(m)).to.equal(true);
    expect(() => guard.nothingFound(m, { instanceId: 'i-1', recordedAt: clock.now() })).to.not.throw();
    const after = setup();
    const recorded = machine({ providerID: 'ibm://x', state: 'deleting', createdAt: after.clock.now() });
    expect(() =>
      after.guard.nothingFound(recorded, { instanceId: 'i-1', recordedAt: after.clock.now() }),
    ).to.not.throw();
  });

  it('keeps a Machine whose launch is only in the ledger (its status write was lost), whatever its annotation says', () => {
    const { clock, ledger, guard } = setup();
    ledger.launched('u1', 'i-9');
    const m = machine({ state: 'deleting' });
    expect(waitOf(() => guard.nothingFound(m, {}))).to.equal(1_000);
    clock.step(WINDOW);
    expect(() => guard.nothingFound(m, {})).to.not.throw();
  });

  it('waits for a launch that never answered (a 5xx, a lost reply) only as long as the ledger does, not the whole window', () => {
    const { clock, ledger, guard } = setup();
    ledger.sending('u1');
    const m = machine({ createdAt: clock.now() });
    expect(waitOf(() => guard.nothingFound(m, {}))).to.equal(1_000);
    clock.step(60_000);
    expect(
      () => guard.nothingFound(m, {}),
      'a minute without the instance showing: the launch most likely made nothing',
    ).to.not.throw();
  });

  it('waits longer between looks the longer it waits, from 1 s up to a cap', () => {
    const { clock, guard } = setup();
    const m = machine({ providerID: 'aws:///z/i-1', createdAt: clock.now() });
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      const ms = waitOf(() => guard.nothingFound(m, { instanceId: 'i-1' }));
      waits.push(ms);
      clock.step(ms);
    }
    expect(waits[0]).to.equal(1_000);
    expect(waits).to.deep.equal([...waits].sort((a, b) => a - b));
    expect(Math.max(...waits)).to.equal(10_000);
    guard.seen('u1');
    expect(
      waitOf(() => guard.nothingFound(m, { instanceId: 'i-1' })),
      'seen since: a new wait starts from 1 s',
    ).to.equal(1_000);
  });

  it('runs the window from the first miss when nothing says when the launch was', () => {
    const { clock, guard } = setup();
    const m = machine({ providerID: 'gce://p/z/m' });
    expect(waitOf(() => guard.nothingFound(m, { instanceId: 'm' }))).to.equal(1_000);
    clock.step(WINDOW - 1);
    expect(waitOf(() => guard.nothingFound(m, { instanceId: 'm' }))).to.be.greaterThan(0);
    clock.step(1);
    expect(() => guard.nothingFound(m, { instanceId: 'm' })).to.not.throw();
  });

  it('rejects a window that cannot work', () => {
    const { clock } = setup();
    expect(() => new DeleteGuard({ clock, windowMs: -1, isTerminating: () => false })).to.throw(RangeError, /windowMs/);
  });
});
