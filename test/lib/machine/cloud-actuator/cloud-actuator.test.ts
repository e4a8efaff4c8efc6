// The cloud actuator template: what every provider inherits, shown on the worked example provider.
import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../../lib/apis/constants.js';
import type { Machine } from '../../../../lib/apis/machine-types.js';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import { DEFAULT_VISIBILITY_WINDOW_MS } from '../../../../lib/cloud/delete-guard.js';
import { RequeueAfterError, isInvalidMachineConfiguration, requeueAfterOf } from '../../../../lib/apis/errors.js';
import { withCloudCallContext } from '../../../../lib/cloud/call-context.js';
import { CloudRateLimitedError } from '../../../../lib/cloud/deferred-turns.js';
import { RegionalRateLimiter } from '../../../../lib/cloud/rate-limiter.js';
import { conformanceContext, RecordingEventRecorder } from '../../../../sim/kit/conformance.js';
import { echoContext } from '../../../../sim/kit/echo-context.js';
import { ExampleActuator, ExampleCloud } from '../../../../examples/example-provider/src/index.js';

let seq = 0;
const machine = (value: Record<string, unknown> = {}): Machine => ({
  metadata: {
    name: `m-${++seq}`,
    namespace: 'ns',
    uid: `uid-${seq}`,
    generation: 1,
    labels: { [MachineClusterIDLabel]: 'c' },
  },
  spec: { providerSpec: { value } },
});
const deleting = (m: Machine): Machine => {
  m.metadata.deletionTimestamp = new Date().toISOString();
  return m;
};
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const eventsOf = (ctx: ReturnType<typeof conformanceContext>) => (ctx.events as RecordingEventRecorder).events;

describe('the cloud actuator template', () => {
  let clock: FakeClock;
  let cloud: ExampleCloud;
  let actuator: ExampleActuator;
  const slowCloud = (o: ConstructorParameters<typeof ExampleCloud>[1]) => {
    cloud = new ExampleCloud(clock, o);
    actuator = new ExampleActuator({ cloud, clock });
  };

  beforeEach(() => {
    clock = new FakeClock(Date.parse('2026-11-26T10:00:00Z'));
    slowCloud({});
  });

  it('asks the cloud nothing about a Machine that never launched anything: create() is idempotent and decides', async () => {
    expect(await actuator.exists(machine(), conformanceContext())).to.equal(false);
    expect(cloud.calls).to.deep.equal([]);
  });

  it('says an invalid spec that never launched anything does not exist, and create() fails it naming the field', async () => {
    const m = machine({ zone: 7 });
    expect(await actuator.exists(m, conformanceContext())).to.equal(false);
    const err = await rejection(actuator.create(m, conformanceContext()));
    expect(isInvalidMachineConfiguration(err)).to.equal(true);
    expect(String(err)).to.contain('spec.providerSpec.value.zone');
  });

  it('waits for an instance on record that reads do not show yet, looking again soon and then less often, within one window', async () => {
    slowCloud({ visibilityMs: 10 * 60_000 });
    const m = machine();
    await actuator.create(m, conformanceContext());
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const err = await rejection(actuator.exists(m, conformanceContext()));
      expect(err).to.be.instanceOf(RequeueAfterError);
      waits.push((err as RequeueAfterError).requeueAfterMs);
      clock.step(20_000);
    }
    expect(waits[0]).to.equal(1_000);
    expect(waits[3]).to.be.greaterThan(waits[0]!);
    clock.step(DEFAULT_VISIBILITY_WINDOW_MS);
    expect(await actuator.exists(m, conformanceContext()), 'the window has passed: gone').to.equal(false);
  });

  it('says at once that an instance a read shows terminated is gone: nothing to wait for', async () => {
    const m = machine();
    await actuator.create(m, conformanceContext());
    await cloud.terminate((m.status?.providerStatus as { instanceId: string }).instanceId);
    expect(await actuator.exists(m, conformanceContext())).to.equal(false);
  });

  it("keeps a deleted Machine's finalizer while its launched instance may not show yet, then terminates it: no leak", async () => {
    slowCloud({ visibilityMs: 30_000 });
    const m = machine();
    await actuator.create(m, conformanceContext());
    deleting(m);
    expect(await rejection(actuator.delete(m, conformanceContext()))).to.be.instanceOf(RequeueAfterError);
    clock.step(30_000);
    const ctx = conformanceContext();
    await actuator.delete(m, ctx);
    expect(cloud.calls).to.include('terminate');
    expect(await actuator.exists(m, ctx), 'terminating, answered from the delete of this reconcile').to.equal(true);
  });

  it("answers the exists() that follows a delete in the same reconcile from the delete's own reads", async () => {
    const m = machine();
    await actuator.create(m, conformanceContext());
    deleting(m);
    const ctx = conformanceContext();
    await actuator.delete(m, ctx);
    const calls = cloud.calls.length;
    expect(await actuator.exists(m, ctx)).to.equal(true);
    expect(cloud.calls.length).to.equal(calls);
  });

  it('lets update() use what exists() read in the same reconcile', async () => {
    const m = machine();
    await actuator.create(m, conformanceContext());
    const ctx = conformanceContext();
    expect(await actuator.exists(m, ctx)).to.equal(true);
    const calls = cloud.calls.length;
    await actuator.update(m, ctx);
    expect(cloud.calls.length).to.equal(calls);
    expect(m.spec?.providerID).to.match(/^example:\/\/\//);
  });

  it("answers the echo of a reconcile's own write from that reconcile's read, unless the Node registered while the view was booting", async () => {
    slowCloud({ bootMs: 60_000 });
    const m = machine();
    await actuator.create(m, conformanceContext());
    const first = conformanceContext();
    expect(await actuator.exists(m, first)).to.equal(true);
    await actuator.update(m, first);
    const calls = cloud.calls.length;
    const echo = echoContext(first, conformanceContext());
    expect(await actuator.exists(m, echo)).to.equal(true);
    expect(cloud.calls.length, 'answered from the carried read').to.equal(calls);
    expect(await actuator.exists(m, echoContext(echo, conformanceContext()))).to.equal(true);
    expect(cloud.calls.length, 'a carried read is handed on once, never twice').to.equal(calls + 1);
    m.status = { ...m.status, nodeRef: { kind: 'Node', name: 'n' } };
    expect(await actuator.exists(m, echoContext(first, conformanceContext()))).to.equal(true);
    expect(cloud.calls.length, 'a booting view is outdated once the Node is there').to.be.greaterThan(calls);
  });

  it('warns about unknown providerSpec fields once per generation', async () => {
    const m = machine({ zone: 'example-zone-a', colour: 'blue' });
    const ctx = conformanceContext();
    await actuator.create(m, ctx);
    await actuator.update(m, ctx);
    expect(eventsOf(ctx).filter((e) => e.reason === 'UnknownFields')).to.have.length(1);
    m.metadata.generation = 2;
    await actuator.update(m, ctx);
    expect(eventsOf(ctx).filter((e) => e.reason === 'UnknownFields')).to.have.length(2);
  });

  it('announces a deletion once however many passes it takes', async () => {
    slowCloud({ terminateMs: 60_000 });
    const m = machine();
    await actuator.create(m, conformanceContext());
    deleting(m);
    const ctx = conformanceContext();
    await actuator.delete(m, ctx);
    await actuator.delete(m, ctx);
    expect(eventsOf(ctx).filter((e) => e.reason === 'Delete')).to.have.length(1);
  });

  it("defers a launch that would stand long in the cloud's rate line: nothing sent, nothing failed, and the Machine comes again at its turn", async () => {
    const limiter = new RegionalRateLimiter({ describe: { qps: 10, burst: 10 }, mutate: { qps: 1, burst: 1 } }, clock);
    actuator = new ExampleActuator({ cloud, clock, limiter });
    const inReconcile = <T>(m: Machine, fn: () => Promise<T>) =>
      withCloudCallContext({ key: m.metadata.uid ?? '', deferBeyondMs: 1_000 }, fn);
    const first = machine();
    await inReconcile(first, () => actuator.create(first, conformanceContext()));
    // Three launches outside a reconcile already wait for the next three tokens.
    const queued = [machine(), machine(), machine()].map((m) => actuator.create(m, conformanceContext()));
    const m = machine();
    const err = await rejection(inReconcile(m, () => actuator.create(m, conformanceContext())));
    expect(err).to.be.instanceOf(CloudRateLimitedError);
    // Its token is 4 s off (the three in line take the next three); it is back when that is down to 0.5 s.
    expect(requeueAfterOf(err), 'its turn: after the three in line').to.equal(3_500);
    expect(m.status?.conditions ?? [], 'a deferral is not a failed creation').to.deep.equal([]);
    const launches = cloud.calls.filter((c) => c === 'launch').length;
    expect(await actuator.exists(m, conformanceContext()), 'nothing was launched to wait for').to.equal(false);
    for (let t = 0; t < 4_500; t += 100) {
      clock.step(100);
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(queued);
    await inReconcile(m, () => actuator.create(m, conformanceContext()));
    expect(cloud.calls.filter((c) => c === 'launch').length).to.equal(launches + 4);
    expect(cloud.liveNamed(m.metadata.name ?? '')).to.equal(1);
  });
});
