import { AllocateHostsCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import {
  ApiError,
  InvalidMachineConfigurationError,
  MachineError,
  RealClock,
  RequeueAfterError,
  findError,
  InsufficientCapacityError,
  isInvalidMachineConfiguration,
  type KubeClient,
  type KubeObject,
  type Machine,
} from '../../../lib/index.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { createAwsActuator, type AwsActuator } from '../../../providers/aws/index.js';
import { MACHINE_UID_TAG, clientTokenFor } from '../../../providers/aws/instances.js';
import { ec2Client } from '../../sim/aws/ec2-test-env.js';
import { awsSpec, machine, recordingContext, secretsClient } from './fixtures.js';

const clock = new RealClock();
const fastLimits = { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } };

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Applies lifecycle transitions already due, in case no request has made the emulator look.
    current?.advance();
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

let current: Ec2Emulator | undefined;

describe('AWS actuator (against the EC2 emulator)', function () {
  this.timeout(20_000);
  let emu: Ec2Emulator;
  let actuator: AwsActuator;

  const liveInstances = () => emu.instances().filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');

  beforeEach(async () => {
    emu = await startEc2Emulator({ timings: { bootMs: 30, terminateMs: 30, stopMs: 30 } });
    current = emu;
    actuator = createAwsActuator({
      client: secretsClient(),
      clock,
      endpoint: emu.endpoint,
      retryDelayMs: () => 1,
      batchWindowMs: 2,
      rateLimits: fastLimits,
    });
  });
  afterEach(async () => {
    actuator.close();
    await emu.stop();
  });

  it('creates one tagged instance with an idempotency token and records its id before returning', async () => {
    const m = machine('worker-1');
    const ctx = recordingContext();
    await actuator.create(m, ctx);
    const [inst] = emu.instances();
    expect(emu.instances()).to.have.length(1);
    expect(m.status?.providerStatus).to.deep.include({ instanceId: inst!.instanceId, instanceState: 'pending' });
    // As the reference: create writes status only; update (once the instance is seen) sets the annotation.
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal(undefined);
    expect(inst!.clientToken).to.equal(clientTokenFor(m));
    const tags = Object.fromEntries(inst!.tags.map((t) => [t.key, t.value]));
    expect(tags).to.include({
      Name: 'worker-1',
      'kubernetes.io/cluster/test-cluster': 'owned',
      [MACHINE_UID_TAG]: m.metadata.uid,
    });
    expect(inst!.instanceType).to.equal('m6i.xlarge');
    expect(inst!.availabilityZone).to.equal('us-east-1a');
    expect(ctx.recorded).to.deep.include({
      type: 'Normal',
      reason: 'Create',
      message: 'Created Machine worker-1',
      object: 'worker-1',
    });
  });

  it('never launches a second instance when create is retried without the first result (lost reply, restart)', async () => {
    const m = machine('worker-2');
    // More lost replies than the SDK's attempts, so the call fails the way a crash would look.
    emu.knobs.loseNextReplies('RunInstances', 3);
    const err = await rejection(actuator.create(structuredClone(m), recordingContext()));
    expect(isInvalidMachineConfiguration(err)).to.equal(false);
    // A fresh actuator, as after a controller restart, retrying with the Machine as the API server has it.
    const restarted = createAwsActuator({
      client: secretsClient(),
      clock,
      endpoint: emu.endpoint,
      retryDelayMs: () => 1,
    });
    try {
      await restarted.create(m, recordingContext());
      await restarted.create(structuredClone(machine('worker-2', awsSpec(), m.metadata.uid)), recordingContext());
    } finally {
      restarted.close();
    }
    expect(emu.instances()).to.have.length(1);
    expect(m.status?.providerStatus?.instanceId).to.equal(emu.instances()[0]!.instanceId);
  });

  it('requeues instead of creating again while a recorded instance is not yet visible', async () => {
    const m = machine('worker-3');
    emu.knobs.setVisibilityDelay(60_000);
    await actuator.create(m, recordingContext());
    const err = await rejection(actuator.exists(m, recordingContext()));
    expect(findError(err, RequeueAfterError)).to.be.instanceOf(RequeueAfterError);
    expect(emu.instances()).to.have.length(1);
  });

  it('past the eventual-consistency window, a create retried for an invisible instance still gets the same one', async () => {
    const impatient = createAwsActuator({
      client: secretsClient(),
      clock,
      endpoint: emu.endpoint,
      retryDelayMs: () => 1,
      eventualConsistencyWindowMs: 0,
    });
    try {
      const m = machine('worker-ec');
      emu.knobs.setVisibilityDelay(60_000);
      await impatient.create(m, recordingContext());
      expect(await impatient.exists(m, recordingContext())).to.equal(false);
      await impatient.create(m, recordingContext());
      expect(emu.instances()).to.have.length(1);
    } finally {
      impatient.close();
    }
  });

  it('does not finish deleting a machine whose recorded instance is not visible yet', async () => {
    const m = machine('worker-del-ec');
    emu.knobs.setVisibilityDelay(60_000);
    await actuator.create(m, recordingContext());
    const err = await rejection(actuator.delete(m, recordingContext()));
    expect(findError(err, RequeueAfterError)).to.be.instanceOf(RequeueAfterError);
  });

  it("does not call a provisioned machine's instance gone when a lagging read stops showing it (terminated instances stay visible)", async () => {
    const m = machine('worker-flap');
    await actuator.create(m, recordingContext());
    await until(() => actuator.exists(m, recordingContext()), 'visible');
    await actuator.update(m, recordingContext());
    expect(m.spec?.providerID).to.be.a('string');
    emu.knobs.setVisibilityDelay(60_000);
    const err = await rejection(actuator.exists(m, recordingContext()));
    expect(findError(err, RequeueAfterError)).to.be.instanceOf(RequeueAfterError);
    emu.knobs.setVisibilityDelay(0);
  });

  it('keeps deleting a provisioned machine whose instance a lagging read hides, until it is seen and terminated: no leak', async () => {
    const m = machine('worker-hidden-del');
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    await until(() => actuator.exists(m, recordingContext()), 'visible');
    await actuator.update(m, recordingContext());
    expect(m.spec?.providerID).to.be.a('string');
    emu.knobs.setVisibilityDelay(60_000);
    m.metadata.deletionTimestamp = new Date().toISOString();
    const err = await rejection(actuator.delete(m, recordingContext()));
    expect(findError(err, RequeueAfterError)).to.be.instanceOf(RequeueAfterError);
    expect(emu.instance(id)?.state, 'not terminated, not forgotten').to.not.be.oneOf(['shutting-down', 'terminated']);
    emu.knobs.setVisibilityDelay(0);
    await actuator.delete(m, recordingContext());
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('shutting-down');
    await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    await actuator.delete(m, recordingContext());
    expect(await actuator.exists(m, recordingContext())).to.equal(false);
    expect(liveInstances().filter((i) => i.instanceId === id)).to.have.length(0);
  });

  it('does not finish deleting a machine whose instance was launched but whose id never reached its status', async () => {
    const m = machine('worker-unrecorded');
    emu.knobs.setVisibilityDelay(60_000);
    const asStored = structuredClone(m);
    await actuator.create(m, recordingContext());
    // The status write after create was lost: the Machine as the API holds it knows nothing of the instance.
    asStored.metadata.deletionTimestamp = '2026-11-22T08:00:00Z';
    const err = await rejection(actuator.delete(asStored, recordingContext()));
    expect(findError(err, RequeueAfterError)).to.be.instanceOf(RequeueAfterError);
    emu.knobs.setVisibilityDelay(0);
    await actuator.delete(asStored, recordingContext());
    expect(liveInstances(), 'the launched instance is terminated, not left behind').to.have.length(0);
  });

  it('reports existence, and update writes providerID, addresses, labels, annotations and status', async () => {
    const m = machine('worker-4');
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    await until(() => emu.instance(id)?.state === 'running', 'running');
    expect(await actuator.exists(m, recordingContext())).to.equal(true);
    const ctx = recordingContext();
    await actuator.update(m, ctx);
    expect(m.spec?.providerID).to.equal(`aws:///us-east-1a/${id}`);
    expect(m.metadata.labels).to.include({
      'machine.openshift.io/region': 'us-east-1',
      'machine.openshift.io/zone': 'us-east-1a',
      'machine.openshift.io/instance-type': 'm6i.xlarge',
    });
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('running');
    const types = (m.status?.addresses ?? []).map((a) => a.type);
    expect(types).to.include.members(['InternalIP', 'InternalDNS', 'Hostname']);
    const ps = m.status?.providerStatus as {
      instanceState: string;
      conditions: Array<{ type: string; status: string }>;
    };
    expect(ps.instanceState).to.equal('running');
    expect(ps.conditions).to.deep.include({ ...ps.conditions[0], type: 'MachineCreation', status: 'True' });
    expect(ctx.recorded, 'the first recording of a new instance is part of creating it').to.deep.equal([]);

    const again = recordingContext();
    await actuator.update(m, again);
    expect(again.recorded, 'no Update event when nothing changed').to.deep.equal([]);

    const relabelled = recordingContext();
    delete m.metadata.labels?.['machine.openshift.io/zone'];
    await actuator.update(m, relabelled);
    expect(
      relabelled.recorded.map((e) => e.reason),
      'a recorded machine whose labels update restores',
    ).to.deep.equal(['Update']);
  });

  it('marks spot machines interruptible on the Machine and its Node', async () => {
    const m = machine('spot-1', awsSpec({ spotMarketOptions: {} }));
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    await until(() => emu.instance(id)?.state === 'running', 'running');
    await actuator.update(m, recordingContext());
    expect(m.metadata.labels).to.have.property('machine.openshift.io/interruptible-instance', '');
    expect(m.spec?.metadata?.labels).to.have.property('machine.openshift.io/interruptible-instance', '');
  });

  it('terminates on delete and then reports the instance gone', async () => {
    const m = machine('worker-5');
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    await until(() => emu.instance(id)?.state === 'running', 'running');
    await actuator.update(m, recordingContext());
    const ctx = recordingContext();
    await actuator.delete(m, ctx);
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('shutting-down');
    expect(ctx.recorded.map((e) => e.reason)).to.include('Delete');
    await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    expect(await actuator.exists(m, recordingContext())).to.equal(false);
  });

  it("answers the exists() that follows a delete from the delete's own reads: following a termination costs one pass of reads, not two", async () => {
    const m = machine('worker-follow');
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    await until(() => emu.instance(id)?.state === 'running', 'running');
    await actuator.update(m, recordingContext());
    m.metadata.deletionTimestamp = new Date().toISOString();
    const describes = () => emu.knobs.counts('DescribeInstances').total;
    // One context per reconcile, as the machine controller passes it: delete() then exists().
    const first = recordingContext();
    await actuator.delete(m, first);
    let before = describes();
    expect(await actuator.exists(m, first), 'shutting down').to.equal(true);
    expect(describes() - before).to.equal(0);
    await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    const second = recordingContext();
    await actuator.delete(m, second);
    before = describes();
    expect(await actuator.exists(m, second), 'terminated').to.equal(false);
    expect(describes() - before).to.equal(0);
  });

  it('lets a new Machine reuse the name of one whose instance is terminated but still listed', async () => {
    const old = machine('cp-0');
    await actuator.create(old, recordingContext());
    const oldId = old.status?.providerStatus?.instanceId as string;
    emu.terminateOutOfBand(oldId);
    await until(() => emu.instance(oldId)?.state === 'terminated', 'terminated');
    const reused = machine('cp-0');
    expect(await actuator.exists(reused, recordingContext())).to.equal(false);
    await actuator.create(reused, recordingContext());
    expect(reused.status?.providerStatus?.instanceId).to.not.equal(oldId);
    expect(liveInstances()).to.have.length(1);
  });

  it('fails a Machine whose own instance was terminated before it was provisioned', async () => {
    const m = machine('worker-6');
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    emu.terminateOutOfBand(id);
    await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    const err = await rejection(actuator.create(m, recordingContext()));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as Error).message).to.contain('is in a terminated state');
  });

  it('keeps the oldest of duplicate instances and terminates the rest, with a Warning event', async () => {
    const m = machine('worker-7');
    await actuator.create(m, recordingContext());
    const keep = m.status?.providerStatus?.instanceId as string;
    // A twin with the same Name and cluster tags but no UID tag, as a pre-UID provider could have left.
    const twin = machine('worker-7', awsSpec(), 'other-uid');
    const legacy = createAwsActuator({ client: secretsClient(), clock, endpoint: emu.endpoint, retryDelayMs: () => 1 });
    await legacy.create(twin, recordingContext());
    legacy.close();
    const twinId = twin.status?.providerStatus?.instanceId as string;
    const twinInst = emu.world.instances.find((i) => i.instanceId === twinId)!;
    twinInst.tags = twinInst.tags.filter((t) => t.key !== MACHINE_UID_TAG);
    twinInst.clientToken = undefined;
    twinInst.launchTime += 1000;
    await until(() => emu.instance(twinId)?.state === 'running', 'running');

    const ctx = recordingContext();
    await actuator.update(m, ctx).catch((e: unknown) => {
      if (!findError(e, RequeueAfterError)) throw e;
    });
    expect(m.status?.providerStatus?.instanceId).to.equal(keep);
    expect(['shutting-down', 'terminated']).to.include(emu.instance(twinId)?.state);
    expect(ctx.recorded.find((e) => e.reason === 'DuplicateInstances')?.type).to.equal('Warning');
  });

  it('treats throttling and capacity errors as retryable, never as invalid configuration', async () => {
    const m = machine('worker-8');
    emu.knobs.throttleNext('RunInstances', 10);
    const throttled = await rejection(actuator.create(m, recordingContext()));
    expect(isInvalidMachineConfiguration(throttled)).to.equal(false);
    expect(throttled).to.be.instanceOf(MachineError);
    emu.knobs.reset();
    emu.setInsufficientCapacity('m6i.xlarge', '*', true);
    const capacity = await rejection(actuator.create(machine('worker-9'), recordingContext()));
    expect(isInvalidMachineConfiguration(capacity)).to.equal(false);
    expect((capacity as Error).message).to.contain('InsufficientInstanceCapacity');
  });

  it('reports a capacity refusal as InsufficientCapacityError naming the cloud code, zone and type (the controller bounds its retries)', async () => {
    const err = await rejection(
      actuator.create(machine('gpu-1', awsSpec({ instanceType: 'p5.48xlarge' })), recordingContext()),
    );
    const refusal = findError(err, InsufficientCapacityError);
    expect(refusal).to.include({
      cloudCode: 'InsufficientInstanceCapacity',
      instanceType: 'p5.48xlarge',
      reason: 'InsufficientResources',
    });
    expect(refusal?.zone).to.match(/^us-east-1[a-f]$/);
    emu.setVcpuLimit(1);
    const quota = await rejection(actuator.create(machine('big-1'), recordingContext()));
    expect(findError(quota, InsufficientCapacityError)).to.include({ cloudCode: 'VcpuLimitExceeded' });
  });

  it('fails the Machine for a request EC2 calls invalid, with EC2’s message', async () => {
    const err = await rejection(
      actuator.create(machine('bad-ami', awsSpec({ ami: { id: 'ami-0000000000000dead' } })), recordingContext()),
    );
    expect(isInvalidMachineConfiguration(err)).to.equal(true);
    const err2 = await rejection(
      actuator.create(
        machine('bad-sg', awsSpec({ securityGroups: [{ filters: [{ name: 'tag:Name', values: ['nope'] }] }] })),
        recordingContext(),
      ),
    );
    expect(err2).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err2 as InvalidMachineConfigurationError).field).to.equal(
      'spec.providerSpec.value.securityGroups[0].filters',
    );
  });

  it('warns once about unknown providerSpec fields', async () => {
    const m = machine('worker-10', awsSpec({ instanceTyp: 'x' }));
    const ctx = recordingContext();
    await actuator.create(m, ctx);
    await actuator.exists(m, ctx);
    const warnings = ctx.recorded.filter((e) => e.reason === 'UnknownFields');
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.message).to.contain('spec.providerSpec.value.instanceTyp');
  });

  it('batches existence checks of many machines into few DescribeInstances calls', async () => {
    const machines: Machine[] = [];
    for (let i = 0; i < 20; i++) machines.push(machine(`batch-${i}`));
    for (const m of machines) await actuator.create(m, recordingContext());
    emu.knobs.resetCounters();
    const results = await Promise.all(machines.map((m) => actuator.exists(m, recordingContext())));
    expect(results.every(Boolean)).to.equal(true);
    expect(emu.knobs.counts('DescribeInstances').total).to.be.at.most(2);
  });

  it('allocates a dynamic dedicated host, records it before launching, and releases it once the instance terminated', async () => {
    const m = machine(
      'host-1',
      awsSpec({
        placement: {
          region: 'us-east-1',
          availabilityZone: 'us-east-1a',
          tenancy: 'host',
          host: { affinity: 'DedicatedHost', dedicatedHost: { allocationStrategy: 'Dynamic' } },
        },
      }),
    );
    await actuator.create(m, recordingContext());
    const hostId = (m.status?.providerStatus as { dedicatedHost?: { id?: string } }).dedicatedHost?.id;
    expect(hostId).to.match(/^h-/);
    const id = m.status?.providerStatus?.instanceId as string;
    expect(emu.instance(id)?.hostId).to.equal(hostId);
    await actuator.create(m, recordingContext());
    expect(
      emu.world.hosts.filter((h) => h.state === 'available'),
      'one host, however often create runs',
    ).to.have.length(1);

    const first = await rejection(actuator.delete(m, recordingContext()));
    expect(findError(first, RequeueAfterError), 'waits for termination to release the host').to.be.instanceOf(
      RequeueAfterError,
    );
    await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    await actuator.delete(m, recordingContext());
    expect(emu.world.hosts.find((h) => h.hostId === hostId)?.state).to.equal('released');
    expect((m.status?.providerStatus as { dedicatedHost?: { id?: string } }).dedicatedHost).to.deep.equal({});
  });

  it('tags a user-provided dedicated host kubernetes.io/cluster/<id>=shared when launching on it, and never releases it', async () => {
    const allocated = await ec2Client(emu).send(
      new AllocateHostsCommand({ InstanceType: 'm6i.xlarge', AvailabilityZone: 'us-east-1a', Quantity: 1 }),
    );
    const hostId = allocated.HostIds?.[0] as string;
    const m = machine(
      'byo-host-1',
      awsSpec({
        placement: {
          region: 'us-east-1',
          availabilityZone: 'us-east-1a',
          tenancy: 'host',
          host: { affinity: 'DedicatedHost', dedicatedHost: { id: hostId } },
        },
      }),
    );
    await actuator.create(m, recordingContext());
    const host = emu.world.hosts.find((h) => h.hostId === hostId);
    expect(host?.tags).to.deep.include({ key: 'kubernetes.io/cluster/test-cluster', value: 'shared' });
    expect(emu.instance(m.status?.providerStatus?.instanceId as string)?.hostId).to.equal(hostId);

    const id = m.status?.providerStatus?.instanceId as string;
    await actuator.delete(m, recordingContext());
    await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    await actuator.delete(m, recordingContext());
    expect(host?.state, 'a host the user brought is not ours to release').to.equal('available');
  });

  it('launches on a user-provided host even when tagging it fails', async () => {
    const allocated = await ec2Client(emu).send(
      new AllocateHostsCommand({ InstanceType: 'm6i.xlarge', AvailabilityZone: 'us-east-1a', Quantity: 1 }),
    );
    const hostId = allocated.HostIds?.[0] as string;
    emu.knobs.failNext('CreateTags', 1, {
      status: 403,
      code: 'UnauthorizedOperation',
      message: 'You are not authorized to perform this operation.',
    });
    const m = machine(
      'byo-host-2',
      awsSpec({
        placement: {
          region: 'us-east-1',
          availabilityZone: 'us-east-1a',
          tenancy: 'host',
          host: { affinity: 'DedicatedHost', dedicatedHost: { id: hostId } },
        },
      }),
    );
    await actuator.create(m, recordingContext());
    expect(emu.instance(m.status?.providerStatus?.instanceId as string)?.hostId).to.equal(hostId);
  });

  it('costs a fraction of one EC2 call per machine per steady-state reconcile (exists + update)', async () => {
    const machines: Machine[] = [];
    for (let i = 0; i < 10; i++) machines.push(machine(`steady-${i}`));
    for (const m of machines) await actuator.create(m, recordingContext());
    await until(
      () => machines.every((m) => emu.instance(m.status?.providerStatus?.instanceId as string)?.state === 'running'),
      'running',
    );
    for (const m of machines) {
      await actuator.exists(m, recordingContext());
      await actuator.update(m, recordingContext());
    }
    emu.knobs.resetCounters();
    await Promise.all(
      machines.map(async (m) => {
        await actuator.exists(m, recordingContext());
        await actuator.update(m, recordingContext());
      }),
    );
    const calls = emu.knobs.counters.totalCalls();
    // The reference makes at least 4 calls per machine here (40).
    expect(calls, JSON.stringify(emu.knobs.allCounts())).to.be.at.most(2);
  });

  it('registers running instances with classic and network load balancers once, and removes ip targets on delete', async () => {
    const nlb = emu.world.loadBalancers.find((lb) => lb.type === 'network')!;
    const m = machine('lb-1', awsSpec({ loadBalancers: [{ name: nlb.name, type: 'network' }] }));
    await actuator.create(m, recordingContext());
    const id = m.status?.providerStatus?.instanceId as string;
    await until(() => emu.instance(id)?.state === 'running', 'running');
    await actuator.update(m, recordingContext());
    const groups = emu.world.targetGroups.filter((tg) => tg.loadBalancerArns.includes(nlb.arn));
    const inst = emu.instance(id)!;
    for (const tg of groups) {
      const want = tg.targetType === 'ip' ? inst.privateIpAddress : id;
      expect(
        tg.targets.map((t) => t.id),
        tg.name,
      ).to.include(want);
    }
    emu.knobs.resetCounters();
    await actuator.update(m, recordingContext());
    expect(emu.knobs.counts('RegisterTargets').total, 'not redone on every update').to.equal(0);
    await actuator.delete(m, recordingContext());
    for (const tg of groups.filter((g) => g.targetType === 'ip'))
      expect(tg.targets.map((t) => t.id)).to.not.include(inst.privateIpAddress);
  });

  it('removes the ip targets of an instance terminated out of band when its Machine is deleted, unless the Machine of the instance holding the address now wants the load balancer', async () => {
    // The holder's Machine is read from the API server: serve the Machines this test makes beside the Secrets.
    const stored: Machine[] = [];
    const secrets = secretsClient();
    const client: KubeClient = {
      ...secrets,
      async get<T extends KubeObject>(
        resource: { kind: string },
        key: { namespace?: string; name: string },
      ): Promise<T> {
        if (resource.kind !== 'Machine') return secrets.get<T>(resource as never, key);
        const m = stored.find((x) => x.metadata.namespace === key.namespace && x.metadata.name === key.name);
        if (!m)
          throw new ApiError(404, {
            status: 'Failure',
            reason: 'NotFound',
            code: 404,
            message: `machines "${key.name}" not found`,
          });
        return structuredClone(m) as unknown as T;
      },
    };
    actuator.close();
    actuator = createAwsActuator({
      client,
      clock,
      endpoint: emu.endpoint,
      retryDelayMs: () => 1,
      batchWindowMs: 2,
      rateLimits: fastLimits,
    });

    const nlb = emu.world.loadBalancers.find((lb) => lb.type === 'network')!;
    const withLb = awsSpec({ loadBalancers: [{ name: nlb.name, type: 'network' }] });
    const ipGroups = () =>
      emu.world.targetGroups.filter((tg) => tg.loadBalancerArns.includes(nlb.arn) && tg.targetType === 'ip');
    const runningMachine = async (name: string, spec = withLb) => {
      const m = machine(name, spec);
      stored.push(m);
      await actuator.create(m, recordingContext());
      const id = m.status?.providerStatus?.instanceId as string;
      await until(() => emu.instance(id)?.state === 'running', 'running');
      await actuator.update(m, recordingContext());
      return { m, id, ip: emu.instance(id)!.privateIpAddress };
    };
    const gone = async (id: string) => {
      emu.terminateOutOfBand(id);
      await until(() => emu.instance(id)?.state === 'terminated', 'terminated');
    };
    const deleteMachine = async (m: Machine) => {
      m.metadata.deletionTimestamp = new Date().toISOString();
      await actuator.delete(m, recordingContext());
    };

    // Nobody holds the address any more: the target the ended instance left is removed.
    const a = await runningMachine('lb-oob-1');
    expect(a.m.status?.addresses?.map((x) => x.address)).to.include(a.ip);
    await gone(a.id);
    await deleteMachine(a.m);
    for (const tg of ipGroups())
      expect(
        tg.targets.map((t) => t.id),
        tg.name,
      ).to.not.include(a.ip);

    // A new instance got the freed address and its Machine, of the same load balancer, registered it: kept.
    const b = await runningMachine('lb-oob-2');
    await gone(b.id);
    const c = await runningMachine('lb-oob-3');
    expect(c.ip, 'the emulator hands out the lowest free address').to.equal(b.ip);
    await deleteMachine(b.m);
    for (const tg of ipGroups())
      expect(
        tg.targets.map((t) => t.id),
        tg.name,
      ).to.include(c.ip);

    // The new holder's Machine never asked for this load balancer: the leftover would send it the load
    // balancer's traffic, so it goes.
    const d = await runningMachine('lb-oob-4');
    await gone(d.id);
    const e = await runningMachine('lb-oob-5', awsSpec());
    expect(e.ip).to.equal(d.ip);
    for (const tg of ipGroups())
      expect(
        tg.targets.map((t) => t.id),
        'left behind before the delete',
      ).to.include(d.ip);
    await deleteMachine(d.m);
    for (const tg of ipGroups())
      expect(
        tg.targets.map((t) => t.id),
        tg.name,
      ).to.not.include(e.ip);
    expect(ipGroups().flatMap((tg) => tg.targets.map((t) => t.id))).to.include(c.ip);
  });
});
