// The process's capacity memory: refusals skipped for a cool-down, and one probe at a time of a choice whose
// answer is not known here, so Machines asking together cost the cloud one refused launch.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import {
  CapacityMemory,
  DEFAULT_CAPACITY_COOL_DOWN_MS,
  DEFAULT_CAPACITY_PROBE_WAIT_MS,
  type CapacityChoice,
} from '../../../lib/cloud/capacity-memory.js';

const large: CapacityChoice = { instanceType: 'large', zone: 'a', market: 'on-demand' };
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe('CapacityMemory', () => {
  let clock: FakeClock;
  let memory: CapacityMemory;
  beforeEach(() => {
    clock = new FakeClock();
    memory = new CapacityMemory({ clock });
  });

  it('remembers a refusal for the cool-down, per region', () => {
    memory.refused('r1', large, 'no capacity');
    expect(memory.refusalOf('r1', large)).to.include({ message: 'no capacity' });
    expect(memory.refusalOf('r2', large)).to.equal(undefined);
    clock.step(DEFAULT_CAPACITY_COOL_DOWN_MS);
    expect(memory.refusalOf('r1', large)).to.equal(undefined);
  });

  it('lets one launch probe a choice it has no answer for; the next waits and learns the refusal', async () => {
    const probe = await memory.turnToLaunch('r', large);
    expect(probe).to.be.a('function');
    let second: (() => void) | undefined | 'waiting' = 'waiting';
    void memory.turnToLaunch('r', large).then((t) => (second = t));
    await settle();
    expect(second, 'held while the probe is out').to.equal('waiting');
    memory.refused('r', large, 'no capacity');
    probe!();
    await settle();
    expect(second, 'the answer is known: nothing to probe').to.equal(undefined);
  });

  it('hands the probe on when it ends without an answer (an error that is no refusal)', async () => {
    const probe = await memory.turnToLaunch('r', large);
    const next = memory.turnToLaunch('r', large);
    probe!();
    expect(await next).to.be.a('function');
  });

  it('holds nobody once the cloud accepted the choice, until it refuses it', async () => {
    const probe = await memory.turnToLaunch('r', large);
    memory.accepted('r', large);
    probe!();
    expect(await memory.turnToLaunch('r', large)).to.equal(undefined);
    expect(await memory.turnToLaunch('r', large)).to.equal(undefined);
    memory.refused('r', large, 'no capacity');
    clock.step(DEFAULT_CAPACITY_COOL_DOWN_MS);
    expect(await memory.turnToLaunch('r', large), 'the cool-down is over: probed again').to.be.a('function');
  });

  it('lets a probe out for longer than the probe wait hold nobody: the next launch probes in its place', async () => {
    const lost = memory.probe('r', large);
    expect(lost).to.be.a('function');
    expect(memory.probe('r', large), 'one probe at a time').to.equal(undefined);
    clock.step(DEFAULT_CAPACITY_PROBE_WAIT_MS);
    const next = await memory.turnToLaunch('r', large);
    expect(next, 'claimed at once, without waiting').to.be.a('function');
    lost!(); // answering late does not end the probe that replaced it
    expect(memory.probe('r', large)).to.equal(undefined);
  });

  it('waits for a probe at most the probe wait, then probes in its place; an aborted reconcile waits no more', async () => {
    await memory.turnToLaunch('r', large);
    let late: (() => void) | undefined | 'waiting' = 'waiting';
    void memory.turnToLaunch('r', large).then((t) => (late = t));
    await settle();
    clock.step(DEFAULT_CAPACITY_PROBE_WAIT_MS - 1);
    await settle();
    expect(late).to.equal('waiting');
    clock.step(1);
    await settle();
    expect(late, 'the first probe holds nobody any more').to.be.a('function');
    const aborting = new AbortController();
    const aborted = memory.turnToLaunch('r', large, aborting.signal).then(
      () => 'resolved',
      () => 'rejected',
    );
    aborting.abort(new Error('shutting down'));
    expect(await aborted).to.equal('rejected');
  });
});
