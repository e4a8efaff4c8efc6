import { expect } from 'chai';
import type { CoreEvent } from '../../../lib/apis/core.js';
import { EventCorrelator } from '../../../lib/client/event-correlator.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

let n = 0;
function ev(message: string, reason = 'FailedCreate', name = 'm1'): CoreEvent {
  return {
    metadata: { name: `${name}.${n++}`, namespace: 'ns' },
    involvedObject: {
      kind: 'Machine',
      apiVersion: 'machine.openshift.io/v1beta1',
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
    },
    type: 'Warning',
    reason,
    message,
    source: { component: 'machine-controller' },
    reportingComponent: 'machine-controller',
  };
}

describe('EventCorrelator', () => {
  it('creates the first event and turns identical repeats into count/lastTimestamp patches of the same Event', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const first = c.correlate(ev('quota exceeded'));
    expect(first.action).to.equal('create');
    clock.step(1000);
    const second = c.correlate(ev('quota exceeded'));
    expect(second.action).to.equal('patch');
    if (second.action !== 'patch' || first.action !== 'create') return;
    expect(second.event.metadata.name).to.equal(first.event.metadata.name);
    expect(second.patch).to.deep.equal({
      count: 2,
      lastTimestamp: new Date(clock.now()).toISOString(),
      message: 'quota exceeded',
    });
    expect(second.event.firstTimestamp).to.equal(first.event.firstTimestamp);
  });

  it('starts a new Event once the previous one is older than the window', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock, windowMs: 60_000 });
    c.correlate(ev('x'));
    clock.step(60_001);
    expect(c.correlate(ev('x')).action).to.equal('create');
  });

  it('folds more than 10 distinct messages for one object and reason into one combined Event', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const actions = Array.from({ length: 14 }, (_, i) => c.correlate(ev(`error ${i}`)));
    expect(actions.slice(0, 9).every((a) => a.action === 'create')).to.equal(true);
    const tenth = actions[9]!;
    expect(tenth.action).to.equal('create');
    if (tenth.action === 'create') expect(tenth.event.message).to.equal('(combined from similar events): error 9');
    expect(actions.slice(10).map((a) => a.action)).to.deep.equal(['patch', 'patch', 'patch', 'patch']);
  });

  it('keeps objects and reasons apart', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    expect(c.correlate(ev('x', 'A', 'm1')).action).to.equal('create');
    expect(c.correlate(ev('x', 'B', 'm1')).action).to.equal('create');
    expect(c.correlate(ev('x', 'A', 'm2')).action).to.equal('create');
  });

  it('drops events for an object beyond the burst of 25 until the bucket refills (one per 5 minutes)', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const actions = Array.from({ length: 30 }, () => c.correlate(ev('hot loop')).action);
    expect(actions.filter((a) => a !== 'drop')).to.have.length(25);
    expect(actions.slice(25)).to.deep.equal(['drop', 'drop', 'drop', 'drop', 'drop']);
    clock.step(300_000);
    expect(c.correlate(ev('hot loop')).action).to.equal('patch');
    expect(c.correlate(ev('hot loop')).action).to.equal('drop');
  });
});
