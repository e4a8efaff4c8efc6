// The IBM Cloud actuator against the VPC emulator: what it improves on the reference (token and endpoint
// reuse, names resolved once, batched existence checks, idempotent creation by name, paging, network
// resource group, errors never terminal unless the request is wrong).
import { expect } from 'chai';
import {
  InsufficientCapacityError,
  RealClock,
  RequeueAfterError,
  findError,
  isInvalidMachineConfiguration,
  type Machine,
} from '../../../lib/index.js';
import {
  conformanceContext,
  echoContext,
  eventually as eventuallyWithin,
  RecordingEventRecorder,
} from '../../../sim/kit/index.js';
import { IAM_TOKEN_ACTION, startIbmVpcEmulator, type IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import {
  createIbmCloudActuator,
  createVpcClient,
  DEFAULT_VPC_URL,
  IbmClientFactory,
  type IbmCloudActuator,
  type VpcClientOptions,
} from '../../../providers/ibmcloud/index.js';
import { CLUSTER_ID, ibmSpec, machine, secretsClient } from './fixtures.js';

const FAST = { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } };
const RETRY = { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 5 };

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/** Waits up to 5 s: the emulator's timings are tens of milliseconds. */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  eventuallyWithin(what, probe, 5_000);

describe('IBM Cloud actuator', function () {
  this.timeout(20_000);
  let emu: IbmVpcEmulator;

  const endpoints = () => ({
    vpc: emu.endpoint,
    iam: emu.iamEndpoint,
    resourceManager: emu.resourceManagerEndpoint,
    globalTagging: emu.globalTaggingEndpoint,
  });
  const newActuator = (extra: Partial<Parameters<typeof createIbmCloudActuator>[0]> = {}): IbmCloudActuator =>
    createIbmCloudActuator({
      client: secretsClient(),
      clock: new RealClock(),
      endpoints: endpoints(),
      retry: RETRY,
      batchWindowMs: 5,
      rateLimits: FAST,
      ...extra,
    });
  const count = (action: string) => emu.knobs.counts(action).total;
  const live = (m: Machine) => emu.instances().filter((i) => i.name === m.metadata.name && i.status !== 'deleting');
  /** The Machine has exactly one live instance, and its status records that instance. */
  const expectOneInstanceRecorded = (m: Machine) => {
    expect(live(m)).to.have.length(1);
    expect((m.status?.providerStatus as { instanceId?: string }).instanceId).to.equal(live(m)[0]!.id);
  };

  beforeEach(async () => {
    emu = await startIbmVpcEmulator({
      clusterId: CLUSTER_ID,
      timings: { provisionMs: 5, bootMs: 10, deleteMs: 20, stopMs: 10 },
    });
  });
  afterEach(async () => {
    await emu.stop();
  });

  it('gets one IAM token and resolves the spec names once for many machines and reconciles', async () => {
    const a = newActuator();
    const machines = [machine('w-1'), machine('w-2'), machine('w-3')];
    for (const m of machines) await a.create(m, conformanceContext());
    for (const m of machines) {
      await eventually('exists', async () => ((await a.exists(m, conformanceContext())) ? true : undefined));
      await a.update(m, conformanceContext());
    }
    expect(count(IAM_TOKEN_ACTION), 'IAM token requests').to.equal(1);
    for (const action of [
      'ListResourceGroups',
      'ListVpcs',
      'ListImages',
      'ListSubnets',
      'ListSecurityGroups',
      'ListInstanceProfiles',
    ]) {
      expect(count(action), action).to.equal(1);
    }
    expect(count('CreateInstance')).to.equal(3);
  });

  it('checks the existence of many machines with one instance list of the VPC', async () => {
    const a = newActuator({ batchWindowMs: 20 });
    const machines = Array.from({ length: 8 }, (_, i) => machine(`b-${i}`));
    for (const m of machines) await a.create(m, conformanceContext());
    const before = count('ListInstances');
    const answers = await Promise.all(machines.map((m) => a.exists(m, conformanceContext())));
    expect(answers).to.deep.equal(machines.map(() => true));
    expect(count('ListInstances') - before).to.equal(1);
    expect(count('GetInstance')).to.equal(0);
  });

  it('records the instance id on create, and update writes providerID, addresses, labels and the state annotation', async () => {
    const a = newActuator();
    const m = machine('rec-1');
    await a.create(m, conformanceContext());
    const id = (m.status?.providerStatus as { instanceId?: string }).instanceId;
    expect(id).to.match(/^0717_/);
    expect(m.spec?.providerID, 'providerID waits for update').to.equal(undefined);
    await eventually('running', async () => (emu.instance(id!)?.status === 'running' ? true : undefined));
    expect(await a.exists(m, conformanceContext())).to.equal(true);
    await a.update(m, conformanceContext());
    expect(m.spec?.providerID).to.equal(`ibm://${emu.accountId}///${CLUSTER_ID}/${id}`);
    expect(m.status?.addresses).to.deep.equal([
      { type: 'InternalDNS', address: 'rec-1' },
      { type: 'InternalIP', address: emu.instance(id!)?.primary_network_interface?.primary_ip?.address },
    ]);
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('running');
    expect(m.metadata.labels?.['machine.openshift.io/instance-type']).to.equal('bx2-4x16');
  });

  it('adopts the instance when a racing create of the same machine finds the name taken (409)', async () => {
    const one = newActuator();
    const two = newActuator();
    const m = machine('race-1');
    const copy = structuredClone(m);
    await Promise.all([one.create(m, conformanceContext()), two.create(copy, conformanceContext())]);
    expect(live(m)).to.have.length(1);
    expect(emu.knobs.counts('CreateInstance'), 'both posted; the VPC refused the second name').to.include({
      total: 2,
      failed: 1,
    });
    const id = live(m)[0]!.id;
    expect((m.status?.providerStatus as { instanceId?: string }).instanceId).to.equal(id);
    expect((copy.status?.providerStatus as { instanceId?: string }).instanceId).to.equal(id);
  });

  /** Runs create() as the machine controller would after a lost reply, until the instance is adopted and recorded by update(). */
  async function createUntilRecorded(a: IbmCloudActuator, m: Machine): Promise<void> {
    await eventually('adopted', async () => {
      await a.create(m, conformanceContext()).catch(() => undefined);
      return (m.status?.providerStatus as { instanceId?: string } | undefined)?.instanceId ? true : undefined;
    });
    const ctx = conformanceContext();
    expect(await eventually('visible', async () => ((await a.exists(m, ctx)) ? true : undefined))).to.equal(true);
    await a.update(m, ctx);
  }

  it('creates with no read at all: nothing launched means nothing to look up, and the POST alone decides', async () => {
    const a = newActuator();
    const m = machine('one-read-1');
    expect(await a.exists(m, conformanceContext())).to.equal(false);
    expect(await a.exists(m, conformanceContext()), 'asked again at once').to.equal(false);
    expect(count('ListInstances'), 'no list for a Machine that never launched anything').to.equal(0);
    await a.create(m, conformanceContext());
    expect(count('ListInstances'), 'no list before the POST').to.equal(0);
    expect(count('CreateInstance')).to.equal(1);
    expect(live(m)).to.have.length(1);
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state'], 'metadata waits for update').to.equal(
      undefined,
    );
  });

  it('announces no update when the first address arrives after the providerID, but does for later changes', async () => {
    const a = newActuator();
    const m = machine('addr-1');
    await a.create(m, conformanceContext());
    const id = (m.status?.providerStatus as { instanceId?: string }).instanceId!;
    await eventually('running', async () => (emu.instance(id)?.status === 'running' ? true : undefined));
    expect(await a.exists(m, conformanceContext())).to.equal(true);
    await a.update(m, conformanceContext());
    // As recorded while the instance was pending: providerID and name, no address yet.
    m.status = { ...m.status, addresses: (m.status?.addresses ?? []).filter((x) => x.type !== 'InternalIP') };
    const updateEvents = async () => {
      const ctx = conformanceContext();
      expect(await a.exists(m, ctx)).to.equal(true);
      await a.update(m, ctx);
      return (ctx.events as RecordingEventRecorder).events.filter((e) => e.reason === 'Update').length;
    };
    expect(await updateEvents(), 'first address').to.equal(0);
    expect(m.status?.addresses?.map((x) => x.type)).to.deep.equal(['InternalDNS', 'InternalIP']);
    delete m.metadata.labels?.['machine.openshift.io/region'];
    expect(await updateEvents(), 'label restored').to.equal(1);
  });

  it("answers the echo of a reconcile's own write from what that reconcile read, once, then reads afresh", async () => {
    const a = newActuator();
    const m = machine('repeat-1');
    await a.create(m, conformanceContext());
    const first = conformanceContext();
    await eventually('visible', async () => ((await a.exists(m, first)) ? true : undefined));
    const reads = () => count('ListInstances') + count('GetInstance');
    const before = reads();
    const echo = echoContext(first, conformanceContext());
    expect(await a.exists(m, echo)).to.equal(true);
    expect(reads(), 'the echo of the write').to.equal(before);
    expect(await a.exists(m, conformanceContext())).to.equal(true);
    expect(reads(), 'any other reconcile reads afresh').to.equal(before + 1);
  });

  it('adopts an instance made after exists() saw nothing: the POST meets the taken name (409)', async () => {
    const a = newActuator();
    const other = newActuator();
    const m = machine('late-claim-1');
    expect(await a.exists(m, conformanceContext())).to.equal(false);
    const copy = structuredClone(m);
    await other.create(copy, conformanceContext());
    await a.create(m, conformanceContext());
    expectOneInstanceRecorded(m);
  });

  it('adopts the instance of a create whose reply was lost when create() runs again: found by its name, not made twice', async () => {
    const a = newActuator();
    const m = machine('lost-1');
    expect(await a.exists(m, conformanceContext())).to.equal(false);
    emu.knobs.loseNextReplies('CreateInstance', 1);
    await rejection(a.create(m, conformanceContext()));
    expect(await a.exists(m, conformanceContext()), 'no id known: create() decides').to.equal(false);
    await createUntilRecorded(a, m);
    expectOneInstanceRecorded(m);
  });

  it("answers the exists() after a delete from the delete's own read, and says gone once the read does", async () => {
    const a = newActuator();
    const m = machine('del-read-1');
    await a.create(m, conformanceContext());
    const id = (m.status?.providerStatus as { instanceId?: string }).instanceId!;
    await eventually('visible', async () => ((await a.exists(m, conformanceContext())) ? true : undefined));
    const lists = count('ListInstances');
    // One context per reconcile, as the machine controller passes it: delete() then exists().
    m.metadata.deletionTimestamp = new Date().toISOString();
    const first = conformanceContext();
    await a.delete(m, first);
    expect(await a.exists(m, first), 'being deleted').to.equal(true);
    expect(count('ListInstances'), 'no list of its own').to.equal(lists);
    await eventually('gone', async () => (emu.instance(id) ? undefined : true));
    const second = conformanceContext();
    await a.delete(m, second);
    expect(await a.exists(m, second)).to.equal(false);
    expect(count('ListInstances'), 'still no list').to.equal(lists);
    expect(count('DeleteInstance')).to.equal(1);
  });

  it('looks security groups up in the network resource group, and pages every list to the end', async () => {
    const net = { id: 'f'.repeat(32), name: 'network-rg', default: false, seq: emu.world.nextSeq++ };
    emu.world.resourceGroups.push(net);
    for (const x of [...emu.world.vpcs, ...emu.world.subnets, ...emu.world.securityGroups]) x.resourceGroupId = net.id;
    const a = newActuator({ createVpcApi: (o: VpcClientOptions) => createVpcClient({ ...o, pageSize: 1 }) });
    const m = machine(
      'net-1',
      ibmSpec({
        zone: 'us-south-3',
        networkResourceGroup: 'network-rg',
        primaryNetworkInterface: {
          subnet: `${CLUSTER_ID}-subnet-compute-us-south-3`,
          securityGroups: [`${CLUSTER_ID}-sg-control-plane`],
        },
      }),
    );
    await a.create(m, conformanceContext());
    const inst = emu.world.instances.find((i) => i.name === 'net-1');
    expect(inst?.subnetId).to.equal(
      emu.world.subnets.find((s) => s.name === `${CLUSTER_ID}-subnet-compute-us-south-3`)?.id,
    );
    expect(inst?.securityGroupIds).to.deep.equal([
      emu.world.securityGroups.find((g) => g.name === `${CLUSTER_ID}-sg-control-plane`)?.id,
    ]);
    expect(count('ListSubnets'), 'one call per page').to.equal(emu.world.subnets.length);
    expect(count('ListSecurityGroups')).to.equal(emu.world.securityGroups.length);
  });

  it('places the instance on the named dedicated host', async () => {
    const a = newActuator();
    const m = machine('dh-1', ibmSpec({ dedicatedHost: `${CLUSTER_ID}-dh-us-south-1` }));
    await a.create(m, conformanceContext());
    expect(emu.world.instances.find((i) => i.name === 'dh-1')?.dedicatedHostId).to.equal(
      emu.world.dedicatedHosts[0]?.id,
    );
  });

  it('looks the regional endpoint up once per region when no VPC endpoint is configured', async () => {
    // The public default URL is redirected to the emulator, whose region endpoint is itself.
    const redirect = (o: VpcClientOptions) =>
      createVpcClient({ ...o, serviceUrl: o.serviceUrl === DEFAULT_VPC_URL ? emu.endpoint : o.serviceUrl });
    const { vpc: _, ...rest } = endpoints();
    const a = newActuator({ endpoints: rest, createVpcApi: redirect });
    for (const name of ['rg-1', 'rg-2']) await a.create(machine(name), conformanceContext());
    expect(count('GetRegion')).to.equal(1);
    const err = await rejection(
      a.create(machine('rg-3', ibmSpec({ region: 'eu-de', zone: 'eu-de-1' })), conformanceContext()),
    );
    expect(isInvalidMachineConfiguration(err), err.message).to.equal(true);
    expect(err.message).to.contain('spec.providerSpec.value.region');
  });

  it('makes names the VPC does not know InvalidConfiguration naming the field, and creates nothing', async () => {
    const a = newActuator();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ image: 'no-such-image' }, 'spec.providerSpec.value.image'],
      [{ profile: 'bx9-4x16' }, 'spec.providerSpec.value.profile'],
      [{ vpc: 'no-such-vpc' }, 'spec.providerSpec.value.vpc'],
      [
        { primaryNetworkInterface: { subnet: `${CLUSTER_ID}-subnet-compute-us-south-2` } },
        'spec.providerSpec.value.primaryNetworkInterface.subnet',
      ],
      [
        { primaryNetworkInterface: { subnet: `${CLUSTER_ID}-subnet-compute-us-south-1`, securityGroups: ['nope'] } },
        'spec.providerSpec.value.primaryNetworkInterface.securityGroups',
      ],
      [{ profile: 'bz2-4x16' }, 'spec.providerSpec.value.image'],
    ];
    for (const [extra, field] of cases) {
      const err = await rejection(a.create(machine('bad-1', ibmSpec(extra)), conformanceContext()));
      expect(isInvalidMachineConfiguration(err), `${field}: ${err.message}`).to.equal(true);
      expect(err.message).to.contain(field);
    }
    expect(count('CreateInstance')).to.equal(0);
  });

  it('never makes a failing IAM, a 5xx or a missing Secret terminal', async () => {
    const a = newActuator({ retry: { retries: 0, minTimeoutMs: 1, maxTimeoutMs: 1 } });
    emu.knobs.failNext(IAM_TOKEN_ACTION, 1);
    const iam = await rejection(a.create(machine('t-1'), conformanceContext()));
    expect(isInvalidMachineConfiguration(iam), iam.message).to.equal(false);
    emu.knobs.failNext('CreateInstance', 1);
    const server = await rejection(a.create(machine('t-1'), conformanceContext()));
    expect(isInvalidMachineConfiguration(server), server.message).to.equal(false);
    const noSecret = createIbmCloudActuator({
      client: secretsClient([]),
      clock: new RealClock(),
      endpoints: endpoints(),
      rateLimits: FAST,
    });
    const missing = await rejection(noSecret.create(machine('t-2'), conformanceContext()));
    expect(isInvalidMachineConfiguration(missing), missing.message).to.equal(false);
    expect(missing.message).to.contain('not found');
    await a.create(machine('t-1'), conformanceContext());
    expect(emu.world.instances.filter((i) => i.name === 't-1')).to.have.length(1);
  });

  it('reports an account quota refusal (400 over_quota) as InsufficientCapacityError naming the code, zone and profile, and creates nothing', async () => {
    const a = newActuator();
    emu.setInstanceQuota(0);
    try {
      const m = machine('quota-1');
      const err = findError(await rejection(a.create(m, conformanceContext())), InsufficientCapacityError);
      const spec = m.spec?.providerSpec?.value as { zone: string; profile: string };
      expect(err).to.include({
        cloudCode: 'over_quota',
        zone: spec.zone,
        instanceType: spec.profile,
        reason: 'InsufficientResources',
      });
      expect(emu.world.instances.filter((i) => i.name === 'quota-1')).to.have.length(0);
    } finally {
      emu.setInstanceQuota(undefined);
    }
  });

  it('waits for a recorded instance the VPC does not show yet instead of calling it gone', async () => {
    emu.knobs.setVisibilityDelay(60_000);
    const a = newActuator();
    const m = machine('late-1');
    await a.create(m, conformanceContext());
    for (const call of [() => a.exists(m, conformanceContext()), () => a.delete(m, conformanceContext())]) {
      const err = await rejection(call());
      expect(findError(err, RequeueAfterError), err.message).to.be.instanceOf(RequeueAfterError);
    }
    expect(emu.world.instances.filter((i) => i.name === 'late-1')).to.have.length(1);
  });

  it('holds a deleting Machine whose recent instance no read shows by one rule, in delete() and in exists() alike', async () => {
    emu.knobs.setVisibilityDelay(60_000);
    const a = newActuator();
    const m = machine('gone-after-delete-1');
    await a.create(m, conformanceContext());
    expect((m.status?.providerStatus as { instanceId?: string }).instanceId, 'recorded, recently').to.be.a('string');
    m.metadata.deletionTimestamp = new Date().toISOString();
    expect(findError(await rejection(a.delete(m, conformanceContext())), RequeueAfterError)).to.be.instanceOf(
      RequeueAfterError,
    );
    expect(findError(await rejection(a.exists(m, conformanceContext())), RequeueAfterError)).to.be.instanceOf(
      RequeueAfterError,
    );
    expect(live(m), 'nothing deleted, nothing forgotten').to.have.length(1);
  });

  it('deletes the instance it created even when the status write after create was lost and the VPC lags', async () => {
    const a = newActuator();
    const m = machine('lost-status-1');
    const unrecorded = structuredClone(m);
    emu.knobs.setVisibilityDelay(300);
    await a.create(m, conformanceContext());
    const err = await rejection(a.delete(unrecorded, conformanceContext()));
    expect(findError(err, RequeueAfterError), err.message).to.be.instanceOf(RequeueAfterError);
    expect(live(m), 'not deleted, not forgotten').to.have.length(1);
    await eventually('deleted once visible', async () => {
      await a.delete(unrecorded, conformanceContext()).catch(() => undefined);
      return live(m).length === 0 ? true : undefined;
    });
    expect(count('DeleteInstance')).to.equal(1);
  });

  it('keeps deleting a provisioned Machine whose instance a lagging read hides, until it is seen and deleted: no leak', async () => {
    const a = newActuator();
    const m = machine('hidden-del-1');
    await a.create(m, conformanceContext());
    await eventually('visible', async () =>
      (await a.exists(m, conformanceContext()).catch(() => false)) ? true : undefined,
    );
    await a.update(m, conformanceContext());
    expect(m.spec?.providerID, 'provisioned').to.be.a('string');
    // The VPC stops showing the new instance for a while (a read that lags), and the Machine is deleted then.
    emu.knobs.setVisibilityDelay(60_000);
    m.metadata.deletionTimestamp = new Date().toISOString();
    const err = await rejection(a.delete(m, conformanceContext()));
    expect(findError(err, RequeueAfterError), err.message).to.be.instanceOf(RequeueAfterError);
    expect(live(m), 'not deleted, not forgotten').to.have.length(1);
    emu.knobs.setVisibilityDelay(0);
    await a.delete(m, conformanceContext());
    expect(count('DeleteInstance')).to.equal(1);
    await eventually('gone', async () => (emu.instances().some((i) => i.name === m.metadata.name) ? undefined : true));
    await a.delete(m, conformanceContext());
    expect(await a.exists(m, conformanceContext())).to.equal(false);
  });

  it('waits a while for the instance of a create whose reply was lost before deleting finds nothing', async () => {
    const a = newActuator();
    const m = machine('lost-reply-del-1');
    emu.knobs.setVisibilityDelay(300);
    emu.knobs.loseNextReplies('CreateInstance', 1);
    await rejection(a.create(m, conformanceContext()));
    const err = await rejection(a.delete(m, conformanceContext()));
    expect(findError(err, RequeueAfterError), err.message).to.be.instanceOf(RequeueAfterError);
    await eventually('deleted once visible', async () => {
      await a.delete(m, conformanceContext()).catch(() => undefined);
      return live(m).length === 0 ? true : undefined;
    });
  });

  it('keeps deleting a Machine whose lost create was retried into a taken name while the list lags: the instance is not leaked', async () => {
    const a = newActuator();
    const m = machine('lost-then-taken-1');
    emu.knobs.setVisibilityDelay(300);
    emu.knobs.loseNextReplies('CreateInstance', 1);
    await rejection(a.create(m, conformanceContext()));
    // The retried POST meets the name its first POST took; the list does not show that instance yet.
    expect(findError(await rejection(a.create(m, conformanceContext())), RequeueAfterError)).to.be.instanceOf(
      RequeueAfterError,
    );
    m.metadata.deletionTimestamp = new Date().toISOString();
    expect(
      findError(await rejection(a.delete(m, conformanceContext())), RequeueAfterError),
      'the finalizer stays',
    ).to.be.instanceOf(RequeueAfterError);
    await eventually('deleted once visible', async () => {
      await a.delete(m, conformanceContext()).catch(() => undefined);
      return live(m).length === 0 ? true : undefined;
    });
  });

  it('stops waiting for a lost create reply once the instance was adopted: deleting it then finishes at once', async () => {
    const a = newActuator();
    const m = machine('lost-then-adopted-1');
    emu.knobs.loseNextReplies('CreateInstance', 1, 'server-error');
    await rejection(a.create(m, conformanceContext()));
    await createUntilRecorded(a, m);
    const id = (m.status?.providerStatus as { instanceId?: string }).instanceId!;
    await a.delete(m, conformanceContext());
    await eventually('gone', async () => (emu.instance(id) ? undefined : true));
    await a.delete(m, conformanceContext());
    expect(await a.exists(m, conformanceContext())).to.equal(false);
  });

  it('retries idempotent reads on 429 without failing the reconcile', async () => {
    const a = newActuator();
    const m = machine('r-1');
    await a.create(m, conformanceContext());
    emu.knobs.throttleNext('ListInstances', 2);
    expect(await a.exists(m, conformanceContext())).to.equal(true);
  });

  it('issues DELETE once, not again while the instance is deleting', async () => {
    const a = newActuator();
    const m = machine('d-1');
    await a.create(m, conformanceContext());
    await a.delete(m, conformanceContext());
    await a.delete(m, conformanceContext());
    expect(count('DeleteInstance')).to.equal(1);
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('deleting');
    await eventually('gone', async () => ((await a.exists(m, conformanceContext())) ? undefined : true));
  });

  it('attaches the spec tags to the instance once', async () => {
    const a = newActuator();
    const m = machine('tag-1', ibmSpec({ tags: [{ name: 'env', value: 'prod' }] }));
    await a.create(m, conformanceContext());
    await a.update(m, conformanceContext());
    await a.update(m, conformanceContext());
    const inst = emu.instances().find((i) => i.name === 'tag-1')!;
    expect(emu.world.tags[inst.crn]).to.deep.equal(['env:prod']);
    expect(count('AttachTag')).to.equal(1);
  });

  it('gets a new IAM token after a service refuses a revoked one, without failing the machine', async () => {
    const a = newActuator();
    const m = machine('rev-1');
    await a.create(m, conformanceContext());
    emu.revokeTokens();
    const err = await rejection(a.exists(m, conformanceContext()));
    expect(isInvalidMachineConfiguration(err), err.message).to.equal(false);
    expect(err.message).to.contain('401');
    expect(await a.exists(m, conformanceContext())).to.equal(true);
    expect(count(IAM_TOKEN_ACTION)).to.equal(2);
  });

  it('replaces once an instance that runs without a node past the timeout when its Ignition merges the MCS config', async () => {
    const mcs =
      '{"ignition":{"version":"3.2.0","config":{"merge":[{"source":"https://api-int.example:22623/config/worker"}]}}}';
    const secrets = secretsClient();
    secrets.secrets[1]!.data = { userData: Buffer.from(mcs).toString('base64') };
    const a = newActuator({ client: secrets, stuckMachineTimeoutMs: 1 });
    const m = machine('stuck-1');
    await a.create(m, conformanceContext());
    const first = (m.status?.providerStatus as { instanceId: string }).instanceId;
    await eventually('running', async () => (emu.instance(first)?.status === 'running' ? true : undefined));
    await a.update(m, conformanceContext());
    expect(m.spec?.providerID).to.be.a('string');
    m.status = { ...m.status, phase: 'Provisioned' };
    await new Promise((r) => setTimeout(r, 5));
    await a.update(m, conformanceContext());
    expect(m.spec?.providerID, 'providerID cleared').to.equal(undefined);
    expect(m.status?.addresses).to.equal(undefined);
    expect(m.status?.providerStatus).not.to.have.property('instanceId');
    expect(emu.instance(first)?.status).to.be.oneOf(['deleting', undefined]);
    expect(await a.exists(m, conformanceContext()), 'the old instance is not this machine any more').to.equal(false);
    await eventually('the new instance', async () => {
      await a.create(m, conformanceContext());
      return true;
    });
    const second = m.status?.providerStatus as {
      instanceId: string;
      conditions: Array<{ type: string; reason: string }>;
    };
    expect(second.instanceId).to.not.equal(first);
    expect(second.conditions.find((c) => c.type === 'MachineReplacement')?.reason).to.equal(
      'MachineReplacementCompleted',
    );
    await eventually('running again', async () =>
      emu.instance(second.instanceId)?.status === 'running' ? true : undefined,
    );
    await a.update(m, conformanceContext());
    expect(m.spec?.providerID, 'replaced at most once').to.contain(second.instanceId);
  });

  it('never replaces a machine whose user data does not merge the MCS config', async () => {
    const a = newActuator({ stuckMachineTimeoutMs: 1 });
    const m = machine('stuck-2');
    await a.create(m, conformanceContext());
    const id = (m.status?.providerStatus as { instanceId: string }).instanceId;
    await eventually('running', async () => (emu.instance(id)?.status === 'running' ? true : undefined));
    m.status = { ...m.status, phase: 'Provisioned' };
    await new Promise((r) => setTimeout(r, 5));
    await a.update(m, conformanceContext());
    expect(m.spec?.providerID).to.contain(id);
    expect(count('DeleteInstance')).to.equal(0);
  });

  it('shares one factory between actuators: one token per API key', async () => {
    const clients = new IbmClientFactory({ clock: new RealClock(), endpoints: endpoints(), rateLimits: FAST });
    const a = newActuator({ clientFactory: clients });
    const b = newActuator({ clientFactory: clients });
    await a.create(machine('s-1'), conformanceContext());
    await b.create(machine('s-2'), conformanceContext());
    expect(count(IAM_TOKEN_ACTION)).to.equal(1);
  });
});
