import { expect } from 'chai';
import { CapacityAvailableCondition } from '../../../lib/apis/constants.js';
import type { Condition, Machine } from '../../../lib/apis/machine-types.js';
import { Machines } from '../../../lib/client/resources.js';
import { InsufficientCapacityError, RequeueAfterError } from '../../../lib/apis/errors.js';
import type { Actuator } from '../../../lib/machine/actuator.js';
import { MachineReconciler } from '../../../lib/machine/machine-reconciler.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { machine, machineEnv, NS, rctx } from './fixtures.js';

const cond = (m: Machine | undefined): Condition | undefined =>
  m?.status?.conditions?.find((c) => c.type === CapacityAvailableCondition);
const noCapacity = () =>
  new InsufficientCapacityError(
    'InsufficientInstanceCapacity',
    'us-east-1a',
    'p5.48xlarge',
    'We currently do not have sufficient p5.48xlarge capacity',
  );
const capacityFailures = async (env: ReturnType<typeof machineEnv>) =>
  (await env.registry.getSingleMetric('mapi_machine_capacity_failures_total')!.get()).values;

describe('machine controller reconcile: the cloud refuses capacity or quota', () => {
  it('retries inside the window: phase Provisioning, CapacityAvailable=False stamped with the first refusal, not Failed', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 120_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity);
    const r = await env.reconcile('m1');
    expect(r).to.deep.equal({ requeueAfterMs: 5_000 });
    const m = env.get('m1');
    expect(m?.status?.phase).to.equal('Provisioning');
    expect(m?.status?.errorReason).to.equal(undefined);
    expect(cond(m)).to.include({
      status: 'False',
      reason: 'InsufficientCapacity',
      lastTransitionTime: '2026-11-22T06:00:00Z',
    });
    expect(cond(m)?.message)
      .to.contain('InsufficientInstanceCapacity')
      .and.contain('p5.48xlarge')
      .and.contain('us-east-1a');
  });

  it('does not spin: its own status write finds it held; waits grow but never pass the end of the window', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 60_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity, Infinity);
    const waits: number[] = [];
    const first = await env.reconcile('m1');
    waits.push(first ? (first.requeueAfterMs ?? 0) : 0);
    expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 5_000 });
    expect(a.callCount('create')).to.equal(1);
    for (let i = 0; i < 4; i++) {
      env.clock.step(waits[waits.length - 1]!);
      const r = await env.reconcile('m1');
      waits.push(r ? (r.requeueAfterMs ?? 0) : 0);
    }
    // 5 + 10 + 20 = 35 s, then 25 s are left of the minute, then the window is over.
    expect(waits).to.deep.equal([5_000, 10_000, 20_000, 25_000, 0]);
    expect(env.get('m1')?.status?.phase).to.equal('Failed');
  });

  it('after the window: Failed, errorReason InsufficientResources, a message quoting the code, zone and type, a Warning and the metric', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 120_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity, Infinity);
    await env.reconcile('m1');
    env.clock.step(121_000);
    expect(await env.reconcile('m1')).to.equal(undefined);
    const m = env.get('m1');
    expect(m?.status?.phase).to.equal('Failed');
    expect(m?.status?.errorReason).to.equal('InsufficientResources');
    expect(m?.status?.errorMessage).to.equal(
      'InsufficientInstanceCapacity: no capacity for instance type p5.48xlarge in zone us-east-1a: We currently do not have sufficient p5.48xlarge capacity',
    );
    const warning = env.events.list.find((e) => e.reason === 'InsufficientResources');
    expect(warning).to.include({ type: 'Warning', action: 'Create' });
    expect(warning?.message).to.contain('InsufficientInstanceCapacity').and.contain('no capacity for 2m1s');
    expect(await capacityFailures(env)).to.deep.equal([
      {
        value: 1,
        labels: {
          namespace: NS,
          zone: 'us-east-1a',
          instance_type: 'p5.48xlarge',
          code: 'InsufficientInstanceCapacity',
        },
      },
    ]);
    // Failed is final: no further create.
    env.clock.step(600_000);
    await env.reconcile('m1');
    expect(a.callCount('create')).to.equal(2);
  });

  it('a window of 0 fails the Machine at the first refusal, as the reference does', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 0 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity);
    expect(await env.reconcile('m1')).to.equal(undefined);
    expect(env.get('m1')?.status).to.include({ phase: 'Failed', errorReason: 'InsufficientResources' });
    expect(env.events.reasons()).to.include('InsufficientResources');
  });

  it('a create the cloud accepts and refuses later (a GCE insert whose operation fails) does not start the waits over', async () => {
    // Every other create is accepted; the instance never shows, and the next create hears the refusal.
    let refusalDue = false;
    const laterRefusals: Actuator = {
      create: () => {
        if (!refusalDue) {
          refusalDue = true;
          return Promise.resolve();
        }
        refusalDue = false;
        return Promise.reject(noCapacity());
      },
      exists: () => Promise.resolve(false),
      update: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    };
    const env = machineEnv(laterRefusals, { capacityWindowMs: 600_000 });
    await env.client.create(Machines, machine('m1'));
    // Each reconcile's create is accepted, and the pass that follows it in the same reconcile (what the echo of
    // its write did before) hears the refusal.
    const refusalWaits: number[] = [];
    for (let pass = 0; pass < 4; pass++) {
      const r = await env.reconcile('m1');
      const wait = r ? (r.requeueAfterMs ?? 0) : 0;
      refusalWaits.push(wait);
      env.clock.step(Math.max(wait, 1));
    }
    expect(refusalWaits).to.deep.equal([5_000, 10_000, 20_000, 30_000]);
  });

  it('capacity coming back inside the window lets the Machine go on; CapacityAvailable=True once the instance exists', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 120_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity);
    await env.reconcile('m1');
    env.clock.step(5_000);
    expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 30_000 });
    expect(a.callCount('create')).to.equal(2);
    // An accepted create is not yet an instance (GCE can still refuse it in the insert operation): the pass
    // after it, in the same reconcile, saw the instance.
    expect(env.get('m1')?.status?.phase).to.equal('Provisioned');
    expect(cond(env.get('m1'))).to.include({ status: 'True', reason: 'InstanceCreated' });
  });

  it('a wait the actuator asks for (RequeueAfter) neither ends nor extends the window', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 60_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity);
    a.failNext('create', () => new RequeueAfterError(20_000));
    a.failNext('create', noCapacity);
    await env.reconcile('m1');
    env.clock.step(30_000);
    expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 20_000 });
    expect(cond(env.get('m1'))).to.include({ status: 'False', lastTransitionTime: '2026-11-22T06:00:00Z' });
    env.clock.step(31_000);
    await env.reconcile('m1');
    expect(env.get('m1')?.status).to.include({ phase: 'Failed', errorReason: 'InsufficientResources' });
  });

  it('a different create error ends the window: the next refusal starts a new one', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 60_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity);
    a.failNext('create', new Error('connection reset'));
    a.failNext('create', noCapacity, Infinity);
    await env.reconcile('m1');
    env.clock.step(50_000);
    await env.reconcile('m1').catch(() => undefined);
    expect(cond(env.get('m1'))).to.include({ status: 'Unknown', reason: 'CreateFailed' });
    env.clock.step(50_000);
    await env.reconcile('m1');
    // 100 s after the first refusal, but only 0 s into the second window.
    expect(env.get('m1')?.status?.phase).to.equal('Provisioning');
    expect(cond(env.get('m1'))).to.include({ status: 'False', lastTransitionTime: '2026-11-22T06:01:40Z' });
  });

  it('a refusal with a new message keeps the first refusal time', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 120_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity);
    a.failNext(
      'create',
      () => new InsufficientCapacityError('VcpuLimitExceeded', 'us-east-1a', 'p5.48xlarge', 'vCPU limit reached'),
    );
    await env.reconcile('m1');
    env.clock.step(5_000);
    await env.reconcile('m1');
    expect(cond(env.get('m1'))).to.include({ lastTransitionTime: '2026-11-22T06:00:00Z' });
    expect(cond(env.get('m1'))?.message).to.contain('VcpuLimitExceeded');
  });

  it('the window survives a restart: a new controller process reads the first refusal from the Machine', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a, { capacityWindowMs: 120_000 });
    await env.client.create(Machines, machine('m1'));
    a.failNext('create', noCapacity, Infinity);
    await env.reconcile('m1');
    env.clock.step(121_000);
    // Nothing in memory carries over: only what is on the Machine.
    const restarted = new MachineReconciler({
      client: env.client,
      machines: env.machines,
      actuator: a,
      clock: env.clock,
      events: env.events,
      metrics: env.metrics,
      migrationEnabled: false,
      requeueAfterMs: 30_000,
      retryBaseMs: 5,
      retryMaxMs: 1_000_000,
      capacityRetryWindowMs: 120_000,
    });
    await restarted.reconcile({ namespace: NS, name: 'm1' }, rctx());
    expect(env.get('m1')?.status).to.include({ phase: 'Failed', errorReason: 'InsufficientResources' });
  });

  it('adds no CapacityAvailable condition to a Machine that was never refused', async () => {
    const env = machineEnv(new FakeActuator(), { capacityWindowMs: 120_000 });
    await env.client.create(Machines, machine('m1'));
    await env.reconcile('m1');
    expect(cond(env.get('m1'))).to.equal(undefined);
  });
});
