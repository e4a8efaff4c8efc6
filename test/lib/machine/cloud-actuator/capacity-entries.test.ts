// Capacity fallback in the cloud actuator template, shown on the worked example provider: a Machine whose spec
// has fallbacks launches on the first entry with capacity, never gets two instances, and says what it chose.
import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../../lib/apis/constants.js';
import type { Machine } from '../../../../lib/apis/machine-types.js';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import {
  DEFAULT_CAPACITY_COOL_DOWN_MS,
  DEFAULT_CAPACITY_PROBE_WAIT_MS,
} from '../../../../lib/cloud/capacity-memory.js';
import { readCommonProviderStatus } from '../../../../lib/cloud/provider-condition.js';
import {
  CapacityEntriesRefusedError,
  CapacityFallbackReason,
  launchOrder,
} from '../../../../lib/machine/cloud-actuator/index.js';
import { InsufficientCapacityError } from '../../../../lib/apis/errors.js';
import { MachineMetrics } from '../../../../lib/machine/metrics.js';
import { conformanceContext, RecordingEventRecorder } from '../../../../sim/kit/conformance.js';
import {
  ExampleActuator,
  ExampleCloud,
  type ExampleInstance,
} from '../../../../examples/example-provider/src/index.js';
import { Registry } from 'prom-client';

/** The example cloud with its launches held until the test lets them answer, as a reconcile's workers see them. */
class HeldLaunches extends ExampleCloud {
  private readonly held: Array<() => void> = [];
  override async launch(req: Parameters<ExampleCloud['launch']>[0]): Promise<ExampleInstance> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    return super.launch(req);
  }
  /** Launches sent and not answered yet. */
  get waiting(): number {
    return this.held.length;
  }
  /** Lets every launch sent so far answer. */
  answer(): void {
    for (const go of this.held.splice(0)) go();
  }
}

/** Lets every promise chain that can move on do so. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

let seq = 0;
const machine = (value: Record<string, unknown>): Machine => ({
  metadata: { name: `m-${++seq}`, namespace: 'ns', uid: `uid-${seq}`, labels: { [MachineClusterIDLabel]: 'c' } },
  spec: { providerSpec: { value } },
});
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const entryOf = (m: Machine) => readCommonProviderStatus(m.status?.providerStatus).status.capacityEntry;

// Primary: large in zone a; then large in zone b; then small in zone a.
const withFallbacks = {
  instanceType: 'example.large',
  zone: 'example-zone-a',
  fallbacks: [{ zone: 'example-zone-b' }, { instanceType: 'example.small' }],
};

describe('capacity fallback in the cloud actuator template', () => {
  let clock: FakeClock;
  let cloud: ExampleCloud;
  let actuator: ExampleActuator;

  beforeEach(() => {
    clock = new FakeClock(Date.parse('2026-11-28T10:00:00Z'));
    cloud = new ExampleCloud(clock);
    actuator = new ExampleActuator({ cloud, clock });
  });

  it('launches on the first fallback when the primary is refused, in the same create, and records it', async () => {
    cloud.setCapacity('example.large', 'example-zone-a', false);
    const m = machine(withFallbacks);
    const ctx = conformanceContext();
    await actuator.create(m, ctx);
    expect(cloud.launches()).to.equal(2);
    const [instance, ...more] = cloud.liveInstancesNamed(m.metadata.name!);
    expect(more).to.deep.equal([]);
    expect(instance).to.include({ instanceType: 'example.large', zone: 'example-zone-b' });
    expect(entryOf(m)).to.deep.equal({
      index: 1,
      instanceType: 'example.large',
      zone: 'example-zone-b',
      market: 'on-demand',
    });
    const event = (ctx.events as RecordingEventRecorder).events.find((e) => e.reason === CapacityFallbackReason);
    expect(event?.message)
      .to.contain('refused: primary example.large in example-zone-a')
      .and.contain('launched on fallbacks[0] example.large in example-zone-b');
    // Later reconciles read the entry the Machine runs on: labels and providerID say zone b.
    expect(await actuator.exists(m, ctx)).to.equal(true);
    await actuator.update(m, ctx);
    expect(m.spec?.providerID).to.contain('example-zone-b');
  });

  it('fails the create only when every entry is refused, listing each refusal in order', async () => {
    cloud.setCapacity('example.large', 'example-zone-a', false);
    cloud.setCapacity('example.large', 'example-zone-b', false);
    cloud.setCapacity('example.small', 'example-zone-a', false);
    const err = await rejection(actuator.create(machine(withFallbacks), conformanceContext()));
    expect(err).to.be.instanceOf(CapacityEntriesRefusedError).and.instanceOf(InsufficientCapacityError);
    const message = (err as Error).message;
    expect(message).to.contain('no capacity for any of the 3 entries');
    const order = [
      'primary example.large in example-zone-a',
      'fallbacks[0] example.large',
      'fallbacks[1] example.small',
    ];
    const at = order.map((o) => message.indexOf(o));
    expect(at.every((i) => i >= 0)).to.equal(true);
    expect([...at].sort((a, b) => a - b)).to.deep.equal(at);
  });

  it('replays a launch whose reply was lost before trying any other entry: one instance, even if capacity comes back', async () => {
    cloud.setCapacity('example.large', 'example-zone-a', false);
    cloud.loseNextReply(); // the primary is refused first: the lost reply is the fallback's
    const m = machine(withFallbacks);
    const first = await rejection(actuator.create(m, conformanceContext()));
    expect(first).to.be.instanceOf(Error).and.not.instanceOf(InsufficientCapacityError);
    expect(entryOf(m)).to.include({ index: 1 });
    cloud.setCapacity('example.large', 'example-zone-a', true);
    clock.step(DEFAULT_CAPACITY_COOL_DOWN_MS); // the primary is no longer remembered as refused either
    await actuator.create(m, conformanceContext());
    const live = cloud.liveInstancesNamed(m.metadata.name!);
    expect(live).to.have.length(1);
    expect(live[0]).to.include({ zone: 'example-zone-b' });
    expect(entryOf(m)).to.deep.equal({
      index: 1,
      instanceType: 'example.large',
      zone: 'example-zone-b',
      market: 'on-demand',
    });
  });

  it('tries an entry refused recently last for the next Machines, until the cool-down ends', async () => {
    cloud.setCapacity('example.large', 'example-zone-a', false);
    await actuator.create(machine(withFallbacks), conformanceContext());
    expect(cloud.launches()).to.equal(2);
    for (let i = 0; i < 5; i++) await actuator.create(machine(withFallbacks), conformanceContext());
    expect(cloud.launches(), 'one launch per Machine: the refused primary is not asked again').to.equal(7);
    clock.step(DEFAULT_CAPACITY_COOL_DOWN_MS);
    await actuator.create(machine(withFallbacks), conformanceContext());
    expect(cloud.launches(), 'probed again after the cool-down').to.equal(9);
  });

  describe('with ten Machines created side by side, as ten reconcile workers do', () => {
    let held: HeldLaunches;
    beforeEach(() => {
      held = new HeldLaunches(clock);
      actuator = new ExampleActuator({ cloud: held, clock });
    });

    /** Creates `n` Machines at once, answering launches as they come, until every create is done. */
    const createTogether = async (n: number): Promise<Machine[]> => {
      const ms = Array.from({ length: n }, () => machine(withFallbacks));
      let done = false;
      const all = Promise.all(ms.map((m) => actuator.create(m, conformanceContext()))).finally(() => (done = true));
      while (!done) {
        await settle();
        held.answer();
      }
      await all;
      return ms;
    };

    it('costs one refused launch of a refused primary, not one per worker: the others wait for its answer', async () => {
      held.setCapacity('example.large', 'example-zone-a', false);
      const ms = await createTogether(10);
      expect(held.launches(), 'one refused primary, then ten launches on the first fallback').to.equal(11);
      for (const m of ms) {
        expect(held.liveInstancesNamed(m.metadata.name!)).to.have.length(1);
        expect(entryOf(m)).to.include({ index: 1, zone: 'example-zone-b' });
      }
    });

    it('walks down refused entries with one refused launch per entry, however many Machines wait', async () => {
      held.setCapacity('example.large', 'example-zone-a', false);
      held.setCapacity('example.large', 'example-zone-b', false);
      const ms = await createTogether(10);
      expect(held.launches(), 'two refusals, then ten launches on the second fallback').to.equal(12);
      for (const m of ms) expect(entryOf(m)).to.include({ index: 2, instanceType: 'example.small' });
    });

    it('sends launches of a choice with capacity side by side once the cloud has accepted one', async () => {
      await createTogether(1);
      const ms = Array.from({ length: 10 }, () => machine(withFallbacks));
      const all = Promise.all(ms.map((m) => actuator.create(m, conformanceContext())));
      await settle();
      expect(held.waiting, 'every Machine launches at once: the choice is known to have capacity').to.equal(10);
      held.answer();
      await all;
      expect(held.launches()).to.equal(11);
    });

    it('holds the others only for the probe: a probe that is not answered lets them go after the probe wait', async () => {
      held.setCapacity('example.large', 'example-zone-a', false);
      const ms = Array.from({ length: 3 }, () => machine(withFallbacks));
      const all = Promise.all(ms.map((m) => actuator.create(m, conformanceContext())));
      await settle();
      expect(held.waiting, 'the probe only').to.equal(1);
      clock.step(DEFAULT_CAPACITY_PROBE_WAIT_MS);
      await settle();
      expect(held.waiting, 'the probe wait is over: the others launch the primary too').to.equal(3);
      let done = false;
      void all.finally(() => (done = true));
      while (!done) {
        held.answer();
        await settle();
      }
      await all;
      for (const m of ms) expect(held.liveInstancesNamed(m.metadata.name!)).to.have.length(1);
    });

    it('hands the probe on when its reply is lost, and every Machine still ends with one instance', async () => {
      held.loseNextReply();
      const ms = Array.from({ length: 5 }, () => machine(withFallbacks));
      let done = false;
      const all = Promise.allSettled(ms.map((m) => actuator.create(m, conformanceContext()))).finally(
        () => (done = true),
      );
      while (!done) {
        await settle();
        held.answer();
      }
      const outcomes = await all;
      expect(
        outcomes.filter((o) => o.status === 'rejected'),
        'only the probe whose reply was lost',
      ).to.have.length(1);
      const lost = ms[outcomes.findIndex((o) => o.status === 'rejected')]!;
      const replay = actuator.create(lost, conformanceContext());
      await settle();
      held.answer();
      await replay;
      for (const m of ms) {
        expect(held.liveInstancesNamed(m.metadata.name!)).to.have.length(1);
        expect(entryOf(m)).to.include({ index: 0 });
      }
    });

    it("replays a Machine's recorded entry without waiting for another Machine's probe of it", async () => {
      held.setCapacity('example.large', 'example-zone-a', false);
      const replaying = machine(withFallbacks);
      replaying.status = {
        providerStatus: {
          capacityEntry: { index: 0, instanceType: 'example.large', zone: 'example-zone-a', market: 'on-demand' },
        },
      };
      const first = actuator.create(machine(withFallbacks), conformanceContext());
      await settle();
      expect(held.waiting).to.equal(1);
      const replay = actuator.create(replaying, conformanceContext());
      await settle();
      expect(
        held.waiting,
        'the recorded entry goes out at once: its earlier launch may have made an instance',
      ).to.equal(2);
      while (held.waiting > 0) {
        held.answer();
        await settle();
      }
      await Promise.all([first, replay]);
      expect(held.liveInstancesNamed(replaying.metadata.name!)).to.have.length(1);
    });
  });

  it('counts refusals and fallbacks by instance type, zone and market', async () => {
    cloud.setCapacity('example.large', 'example-zone-a', false);
    const registry = new Registry();
    const ctx = { ...conformanceContext(), metrics: new MachineMetrics(registry) };
    await actuator.create(machine(withFallbacks), ctx);
    const text = await registry.metrics();
    expect(text).to.contain(
      'mapi_machine_capacity_refusals_total{instance_type="example.large",zone="example-zone-a",market="on-demand"} 1',
    );
    expect(text).to.contain(
      'mapi_machine_capacity_fallbacks_total{instance_type="example.large",zone="example-zone-b",market="on-demand"} 1',
    );
  });

  it('changes nothing for a Machine without fallbacks: one launch, no entry on record', async () => {
    cloud.setCapacity('example.large', 'example-zone-a', false);
    const m = machine({ instanceType: 'example.large', zone: 'example-zone-a' });
    const err = await rejection(actuator.create(m, conformanceContext()));
    expect(err).to.be.instanceOf(InsufficientCapacityError).and.not.instanceOf(CapacityEntriesRefusedError);
    expect(cloud.launches()).to.equal(1);
    expect(entryOf(m)).to.equal(undefined);
  });

  it('orders the recorded entry first, then the list with remembered refusals last', () => {
    const entries = [0, 1, 2, 3].map((i) => ({
      scope: i,
      choice: { instanceType: `t${i}`, zone: 'z', market: 'on-demand' as const },
      region: 'r',
    }));
    expect(launchOrder(entries, undefined, (e) => e.scope === 1)).to.deep.equal([0, 2, 3, 1]);
    expect(launchOrder(entries, 2, (e) => e.scope === 0)).to.deep.equal([2, 1, 3, 0]);
  });
});
