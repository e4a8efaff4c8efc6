// The conformance suite proven against the FakeActuator (the same suite each provider runs on its own).
import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import {
  actuatorConformanceChecks,
  conformanceTools,
  describeActuatorConformance,
  type ActuatorConformanceHarness,
} from '../../../sim/kit/conformance.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

const NS = 'conformance';
let uid = 0;
const machineFor = (name: string, value: Record<string, unknown>): Machine => ({
  metadata: { name, namespace: NS, uid: `uid-${++uid}`, labels: { [MachineClusterIDLabel]: 'c' } },
  spec: { providerSpec: { value } },
});

describeActuatorConformance('FakeActuator', async () => {
  const actuator = new FakeActuator();
  return {
    actuator,
    namespace: NS,
    validMachine: (name) => machineFor(name, { instanceType: 'fake.large', zone: 'fake-zone-b' }),
    invalidMachine: () => ({
      machine: machineFor('invalid', { instanceType: 42 }),
      field: 'spec.providerSpec.value.instanceType',
    }),
    countInstancesFor: (m) => actuator.countInstancesFor(m),
    loseNextReply: (action) => actuator.loseNextReply(action),
    throttle: (on) => actuator.throttle(on),
    cleanup: () => {},
  };
});

// Boot and termination delays on a fake clock exercise the suite's "eventually" path and `advance`.
describeActuatorConformance('FakeActuator with boot and termination delays', async () => {
  const clock = new FakeClock();
  const actuator = new FakeActuator({ clock, bootDelayMs: 30_000, terminateDelayMs: 60_000 });
  return {
    actuator,
    namespace: NS,
    validMachine: (name) => machineFor(name, {}),
    invalidMachine: () => ({
      machine: machineFor('invalid', { zone: 'Not A Zone' }),
      field: 'spec.providerSpec.value.zone',
    }),
    countInstancesFor: (m) => actuator.countInstancesFor(m),
    loseNextReply: (action) => actuator.loseNextReply(action),
    throttle: (on) => actuator.throttle(on),
    cleanup: () => {},
    pollIntervalMs: 1,
    advance: () => clock.step(10_000),
  };
});

describe('the conformance checks catch broken actuators', () => {
  const check = (title: string) => {
    const c = actuatorConformanceChecks.find((x) => x.title.startsWith(title));
    if (!c) throw new Error(`no check ${title}`);
    return c;
  };
  const harnessFor = (
    actuator: FakeActuator,
    over: Partial<ActuatorConformanceHarness> = {},
  ): ActuatorConformanceHarness => ({
    actuator,
    namespace: NS,
    validMachine: (name) => machineFor(name, {}),
    invalidMachine: () => ({
      machine: machineFor('invalid', { instanceType: 42 }),
      field: 'spec.providerSpec.value.instanceType',
    }),
    countInstancesFor: (m) => actuator.countInstancesFor(m),
    loseNextReply: (action) => actuator.loseNextReply(action),
    throttle: (on) => actuator.throttle(on),
    cleanup: () => {},
    eventuallyTimeoutMs: 200,
    pollIntervalMs: 1,
    ...over,
  });
  const fails = async (h: ActuatorConformanceHarness, title: string) => {
    const err = await check(title)
      .run(h, conformanceTools(h))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err, `check "${title}" should fail`).to.be.instanceOf(Error);
  };

  it('a create without an idempotency token fails "creating twice"', async () => {
    const a = new FakeActuator();
    const create = a.create.bind(a);
    a.create = async (m, ctx) => create({ ...m, metadata: { ...m.metadata, uid: `random-${Math.random()}` } }, ctx);
    // Count by name, as a cloud listing instances by tag would.
    await fails(
      harnessFor(a, {
        countInstancesFor: (m) => a.allInstances().filter((i) => i.machine.name === m.metadata.name).length,
      }),
      'creating twice',
    );
  });

  it('an exists() that answers false while throttled fails the throttling check', async () => {
    const a = new FakeActuator();
    const exists = a.exists.bind(a);
    a.exists = async (m, ctx) => exists(m, ctx).catch(() => false);
    await fails(harnessFor(a), 'exists() under throttling');
  });

  it('an untyped validation error fails the invalid-spec check', async () => {
    const a = new FakeActuator();
    const create = a.create.bind(a);
    a.create = async (m, ctx) => create(m, ctx).catch((e: Error) => Promise.reject(new Error(e.message)));
    await fails(harnessFor(a), 'an invalid providerSpec');
  });

  it('an update that forgets the labels fails the update check', async () => {
    const a = new FakeActuator();
    const update = a.update.bind(a);
    a.update = async (m, ctx) => {
      await update(m, ctx);
      m.metadata.labels = {};
    };
    await fails(harnessFor(a), 'update is idempotent');
  });
});
