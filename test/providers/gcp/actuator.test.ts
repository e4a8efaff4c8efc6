// The GCP actuator's own behaviour (beyond the conformance suite), against the GCE emulator with the real
// compute clients; a recording ComputeApi wrapper shows which calls were made and with which request ids.
import { expect } from 'chai';
import { PassThroughClient } from 'google-auth-library';
import {
  CloudRateLimitedError,
  InsufficientCapacityError,
  InvalidMachineConfigurationError,
  RealClock,
  findError,
  isInvalidMachineConfiguration,
  type Machine,
} from '../../../lib/index.js';
import { echoContext, eventually } from '../../../sim/kit/index.js';
import { startGceEmulator, VIEW_LIST, type GceEmulator } from '../../../sim/gcp/index.js';
import {
  SdkComputeApi,
  buildInstance,
  createGcpActuator,
  decodeProviderSpec,
  type ComputeApi,
  type GcpActuator,
  type Instance,
} from '../../../providers/gcp/index.js';
import { CLUSTER_ID, PROJECT, REGION, ZONE, gcpSpec, machine, recordingContext, secretsClient } from './fixtures.js';

interface Call {
  method: string;
  args: unknown[];
}

/** How many of the next inserts the rate limiter defers (CloudRateLimitedError) before they are sent. */
let deferredInserts = 0;

/** Wraps a ComputeApi, recording each call's method and arguments. */
function recording(inner: ComputeApi, calls: Call[]): ComputeApi {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.push({ method: String(prop), args });
        if (prop === 'insertInstance' && deferredInserts > 0) {
          deferredInserts--;
          return Promise.reject(new CloudRateLimitedError(PROJECT, 'mutate', 3_000));
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const count = (calls: Call[], method: string) => calls.filter((c) => c.method === method).length;

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

describe('GCP actuator', function () {
  this.timeout(60_000);
  let emu: GceEmulator;
  let actuator: GcpActuator;
  let calls: Call[];
  let direct: SdkComputeApi;

  before(async () => {
    emu = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 20, deleteDelayMs: 20, stopDelayMs: 20 });
    direct = new SdkComputeApi({ apiEndpoint: emu.endpoint, auth: { authClient: new PassThroughClient() } });
    calls = [];
    actuator = createGcpActuator({
      client: secretsClient(),
      clock: new RealClock(),
      endpoint: emu.endpoint,
      batchWindowMs: 5,
      rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      requeueAfterMs: 50,
      createComputeApi: () =>
        recording(
          new SdkComputeApi({ apiEndpoint: emu.endpoint, auth: { authClient: new PassThroughClient() } }),
          calls,
        ),
    });
  });

  after(async () => {
    await actuator?.close();
    await direct?.close();
    await emu?.stop();
  });

  beforeEach(() => {
    calls.length = 0;
    emu.knobs.reset();
  });

  /** What the machine controller does for a new Machine: create, then exists() and update() once GCE shows it. */
  async function running(m: Machine): Promise<Machine> {
    await actuator.create(m, recordingContext());
    await eventually('the instance to be seen', async () =>
      (await actuator.exists(m, recordingContext()).catch(() => false)) ? true : undefined,
    );
    await actuator.update(m, recordingContext());
    return m;
  }

  const insertIds = () => calls.filter((c) => c.method === 'insertInstance').map((c) => c.args[3]);

  it('creates the instance named after the Machine and returns without waiting for it to boot, with its name on record', async () => {
    const ctx = recordingContext();
    const m = machine('create-1');
    await actuator.create(m, ctx);
    expect(calls.map((c) => c.method)).to.deep.equal(['getImage', 'insertInstance']);
    expect(emu.instance('create-1')).to.not.equal(undefined);
    expect(m.spec?.providerID).to.equal(undefined);
    const status = m.status?.providerStatus as {
      instanceId: string;
      conditions: Array<{ type: string; status: string; reason: string }>;
    };
    expect(status.instanceId).to.equal('create-1');
    expect(status.conditions[0]).to.include({
      type: 'MachineCreated',
      status: 'True',
      reason: 'MachineCreationSucceeded',
    });
    expect(ctx.recorded).to.deep.include({ type: 'Normal', reason: 'Create', message: 'Created Machine create-1' });
    expect(insertIds()[0]).to.match(/^[0-9a-f-]{36}$/);
  });

  it('records the instance on the Machine once exists() sees it: providerID, addresses, labels and state', async () => {
    const m = await running(machine('record-1'));
    expect(m.spec?.providerID).to.equal(`gce://${PROJECT}/${ZONE}/record-1`);
    expect(m.status?.addresses?.[0]?.type).to.equal('InternalIP');
    expect(m.metadata.labels).to.include({
      'machine.openshift.io/instance-type': 'n2-standard-4',
      'machine.openshift.io/region': REGION,
      'machine.openshift.io/zone': ZONE,
    });
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.be.oneOf([
      'PROVISIONING',
      'STAGING',
      'RUNNING',
    ]);
    expect((m.status?.providerStatus as { instanceState?: string }).instanceState).to.be.a('string');
  });

  it('adopts an instance a racing insert already made (409) instead of failing the Machine', async () => {
    const m = machine('race-1');
    await direct.insertInstance(PROJECT, ZONE, bodyOf(m), '00000000-0000-4000-8000-00000000aaaa');
    await running(m);
    expect(emu.instances().filter((i) => i.name === 'race-1')).to.have.length(1);
    expect(m.spec?.providerID).to.equal(`gce://${PROJECT}/${ZONE}/race-1`);
  });

  describe('GPU quota of the region, read before the insert (as the reference does)', () => {
    const noInsert = () => expect(count(calls, 'insertInstance')).to.equal(0);

    it('refuses attached GPUs beyond the quota as a capacity refusal (QUOTA_EXCEEDED), and inserts nothing', async () => {
      emu.setQuotaLimit(REGION, 'NVIDIA_T4_GPUS', 1);
      try {
        calls.length = 0;
        const m = machine(
          't4-1',
          gcpSpec({
            machineType: 'n1-standard-8',
            gpus: [{ type: 'nvidia-tesla-t4', count: 2 }],
            onHostMaintenance: 'Terminate',
          }),
        );
        const err = findError(await rejection(actuator.create(m, recordingContext())), InsufficientCapacityError);
        expect(err).to.include({ cloudCode: 'QUOTA_EXCEEDED', zone: ZONE, instanceType: 'n1-standard-8' });
        expect(err?.message).to.contain('Quota exceeded. Metric: NVIDIA_T4_GPUS. Usage: 0. Limit: 1.');
        noInsert();
      } finally {
        emu.setQuotaLimit(REGION, 'NVIDIA_T4_GPUS', 16);
      }
    });

    it('counts the GPUs a machine type has built in (a3-highgpu-8g: 8 H100), and Spot against the PREEMPTIBLE_ metric', async () => {
      emu.setQuotaLimit(REGION, 'PREEMPTIBLE_NVIDIA_H100_GPUS', 4);
      try {
        calls.length = 0;
        const m = machine(
          'a3-spot-1',
          gcpSpec({ machineType: 'a3-highgpu-8g', provisioningModel: 'Spot', onHostMaintenance: 'Terminate' }),
        );
        const err = findError(await rejection(actuator.create(m, recordingContext())), InsufficientCapacityError);
        expect(err?.message).to.contain('Metric: PREEMPTIBLE_NVIDIA_H100_GPUS. Usage: 0. Limit: 4.');
        noInsert();
      } finally {
        emu.setQuotaLimit(REGION, 'PREEMPTIBLE_NVIDIA_H100_GPUS', 16);
      }
    });

    it('reads no region for a machine without GPUs', async () => {
      calls.length = 0;
      await actuator.create(machine('plain-1'), recordingContext());
      expect(count(calls, 'getRegion')).to.equal(0);
    });
  });

  it('learns from the insert operation that GCE refused the quota, reports it from create, and retries with a fresh request id', async () => {
    emu.setQuotaLimit(REGION, 'INSTANCES', 0);
    try {
      const m = machine('quota-1');
      const ctx = recordingContext();
      await actuator.create(m, ctx);
      // No read shows the instance: the operation, asked once and without waiting, says why.
      expect(await actuator.exists(m, ctx)).to.equal(false);
      expect(count(calls, 'getZoneOperation')).to.equal(1);
      const err = await rejection(actuator.create(m, ctx));
      expect(isInvalidMachineConfiguration(err)).to.equal(false);
      expect(err.message).to.contain('QUOTA_EXCEEDED');
      const status = m.status?.providerStatus as {
        instanceId?: string | null;
        conditions: Array<{ status: string; reason: string }>;
      };
      expect(status.conditions[0]).to.include({ status: 'False', reason: 'MachineCreationFailed' });
      expect(status.instanceId ?? undefined).to.equal(undefined);
      emu.setQuotaLimit(REGION, 'INSTANCES', 1000);
      await running(m);
      const ids = insertIds();
      expect(ids).to.have.length(2);
      expect(ids[0]).to.not.equal(ids[1]);
      expect(emu.instances().filter((i) => i.name === 'quota-1')).to.have.length(1);
    } finally {
      emu.setQuotaLimit(REGION, 'INSTANCES', 1000);
    }
  });

  it('leaves nothing on record for an insert deferred for the rate (never sent), and says nothing failed', async () => {
    const m = machine('deferred-1');
    deferredInserts = 1;
    const err = await rejection(actuator.create(m, recordingContext()));
    expect(err).to.be.instanceOf(CloudRateLimitedError);
    const status = (m.status?.providerStatus ?? {}) as { instanceId?: string | null; conditions?: unknown[] };
    expect(status.instanceId ?? undefined, 'no instance to look for').to.equal(undefined);
    expect(status.conditions ?? []).to.deep.equal([]);
    calls.length = 0;
    expect(await actuator.exists(m, recordingContext())).to.equal(false);
    expect(calls, 'exists() asks GCE nothing: nothing was launched').to.deep.equal([]);
    await running(m);
    expect(emu.instances().filter((i) => i.name === 'deferred-1')).to.have.length(1);
  });

  it('makes a new insert request when GCE replays the operation of an instance that has since gone', async () => {
    const m = machine('replay-1');
    await running(m);
    emu.terminateOutOfBand('replay-1');
    for (let i = 0; i < 200 && emu.instance('replay-1'); i++) await new Promise((r) => setTimeout(r, 10));
    const fresh = structuredClone(m);
    fresh.status = {};
    fresh.spec = { providerSpec: m.spec?.providerSpec };
    await actuator.create(fresh, recordingContext());
    expect(emu.instance('replay-1')).to.equal(undefined);
    // Nothing shows it and the replayed operation is not one this insert can wait on: create again, anew.
    expect(await actuator.exists(fresh, recordingContext())).to.equal(false);
    await running(fresh);
    expect(emu.instances().filter((i) => i.name === 'replay-1')).to.have.length(1);
    expect(new Set(insertIds()).size).to.equal(2);
  });

  it('answers exists() for a Machine with nothing on record without calling GCE, unless the Machine is being deleted', async () => {
    const m = machine('unrecorded-1');
    await direct.insertInstance(PROJECT, ZONE, bodyOf(m), '00000000-0000-4000-8000-00000000cccc');
    // create() would adopt it (409), so "no" costs nothing but the call it saves.
    expect(await actuator.exists(m, recordingContext())).to.equal(false);
    expect(calls).to.have.length(0);
    m.metadata.deletionTimestamp = new Date().toISOString();
    expect(await actuator.exists(m, recordingContext())).to.equal(true);
    expect(count(calls, 'listInstances')).to.be.greaterThan(0);
  });

  it('waits (requeues) to delete an adopted instance GCE does not show yet, instead of calling it gone and leaking it', async () => {
    emu.knobs.setVisibilityDelay(60_000);
    const m = machine('unseen-1');
    await direct.insertInstance(PROJECT, ZONE, bodyOf(m), '00000000-0000-4000-8000-00000000bbbb');
    await actuator.create(m, recordingContext());
    expect((m.status?.providerStatus as { instanceId?: string }).instanceId).to.equal('unseen-1');
    m.metadata.deletionTimestamp = new Date().toISOString();
    expect((await rejection(actuator.delete(m, recordingContext()))).name).to.equal('RequeueAfterError');
    expect((await rejection(actuator.exists(m, recordingContext()))).name).to.equal('RequeueAfterError');
    expect(count(calls, 'deleteInstance')).to.equal(0);
    emu.knobs.setVisibilityDelay(0);
    await actuator.delete(m, recordingContext());
    expect(count(calls, 'deleteInstance')).to.equal(1);
    await eventually('the instance to be gone', async () =>
      (await actuator.exists(m, recordingContext())) ? undefined : true,
    );
    expect(emu.instance('unseen-1')).to.equal(undefined);
  });

  it('waits for an instance it inserted while GCE does not show it yet, asking the operation once per pass', async () => {
    emu.knobs.setVisibilityDelay(60_000);
    const m = machine('unseen-2');
    await actuator.create(m, recordingContext());
    expect((await rejection(actuator.exists(m, recordingContext()))).name).to.equal('RequeueAfterError');
    expect(count(calls, 'getZoneOperation')).to.equal(1);
    emu.knobs.setVisibilityDelay(0);
    expect(await actuator.exists(m, recordingContext())).to.equal(true);
  });

  it('calls an instance it saw once gone when gone out of band, and finishes its delete once the visibility window has passed', async () => {
    const shortWindow = createGcpActuator({
      client: secretsClient(),
      clock: new RealClock(),
      endpoint: emu.endpoint,
      batchWindowMs: 5,
      rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      requeueAfterMs: 50,
      eventualConsistencyWindowMs: 300,
      createComputeApi: () =>
        recording(
          new SdkComputeApi({ apiEndpoint: emu.endpoint, auth: { authClient: new PassThroughClient() } }),
          calls,
        ),
    });
    try {
      const m = machine('seen-1');
      await shortWindow.create(m, recordingContext());
      await eventually('the instance to be seen', async () =>
        (await shortWindow.exists(m, recordingContext()).catch(() => false)) ? true : undefined,
      );
      await shortWindow.update(m, recordingContext());
      m.spec = { ...m.spec, providerID: undefined };
      m.status = { ...m.status, addresses: [] };
      emu.terminateOutOfBand('seen-1');
      for (let i = 0; i < 200 && emu.instance('seen-1'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(await shortWindow.exists(m, recordingContext())).to.equal(false);
      m.metadata.deletionTimestamp = new Date().toISOString();
      // Within the window a read that misses it may lag: the delete waits, then finishes once the window has
      // passed and the look-up by name still shows nothing.
      await eventually('the delete to finish', async () =>
        (await shortWindow.delete(m, recordingContext()).then(
          () => true,
          () => false,
        ))
          ? true
          : undefined,
      );
      expect(count(calls, 'deleteInstance')).to.equal(0);
      expect(count(calls, 'getZoneOperation')).to.equal(0);
    } finally {
      await shortWindow.close();
    }
  });

  it('keeps deleting a provisioned Machine whose instance a lagging read hides, until it is seen and deleted: no leak', async () => {
    const m = await running(machine('hidden-del-1'));
    expect(m.spec?.providerID).to.be.a('string');
    emu.knobs.setVisibilityDelay(60_000);
    m.metadata.deletionTimestamp = new Date().toISOString();
    expect((await rejection(actuator.delete(m, recordingContext()))).name).to.equal('RequeueAfterError');
    expect(emu.instance('hidden-del-1'), 'not deleted, not forgotten').to.not.equal(undefined);
    emu.knobs.setVisibilityDelay(0);
    await actuator.delete(m, recordingContext());
    expect(count(calls, 'deleteInstance')).to.equal(1);
    expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('STOPPING');
    await eventually('the instance to be gone', async () => (emu.instance('hidden-del-1') ? undefined : true));
    await actuator.delete(m, recordingContext());
    expect(await actuator.exists(m, recordingContext())).to.equal(false);
  });

  it('records STOPPING for a delete GCE accepted while the instance was still booting', async () => {
    const slowBoot = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 600_000, deleteDelayMs: 20 });
    const booting = createGcpActuator({
      client: secretsClient(),
      clock: new RealClock(),
      endpoint: slowBoot.endpoint,
      batchWindowMs: 5,
      rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      requeueAfterMs: 50,
    });
    try {
      const m = machine('booting-del-1');
      await booting.create(m, recordingContext());
      await eventually('the instance to be seen', async () =>
        (await booting.exists(m, recordingContext()).catch(() => false)) ? true : undefined,
      );
      expect(slowBoot.instance('booting-del-1')?.status).to.be.oneOf(['PROVISIONING', 'STAGING']);
      m.metadata.deletionTimestamp = new Date().toISOString();
      await booting.delete(m, recordingContext());
      expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('STOPPING');
    } finally {
      await booting.close();
      await slowBoot.stop();
    }
  });

  it('marks a Spot Machine and its node interruptible', async () => {
    const m = await running(machine('spot-1', gcpSpec({ provisioningModel: 'Spot', onHostMaintenance: 'Terminate' })));
    expect(m.metadata.labels).to.have.property('machine.openshift.io/interruptible-instance', '');
    expect(m.spec?.metadata?.labels).to.have.property('machine.openshift.io/interruptible-instance', '');
    expect((emu.instance('spot-1')?.scheduling as { provisioningModel: string }).provisioningModel).to.equal('SPOT');
  });

  it('fails the Machine for a request GCE calls invalid (an unknown machine type), naming the cause', async () => {
    const m = machine('bad-type-1', gcpSpec({ machineType: 'n9-imaginary-4' }));
    const err = await rejection(actuator.create(m, recordingContext()));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err.message).to.contain('error launching instance');
    expect(emu.instance('bad-type-1')).to.equal(undefined);
  });

  it('turns Shielded VM off for a non-UEFI boot image when the spec leaves it unset', async () => {
    const m = machine(
      'legacy-1',
      gcpSpec({
        disks: [
          {
            boot: true,
            autoDelete: true,
            sizeGb: 64,
            type: 'pd-ssd',
            image: 'projects/rhcos-cloud/global/images/rhcos-410-84-202201250002-0-gcp-x86-64',
          },
        ],
      }),
    );
    await running(m);
    expect(emu.instance('legacy-1')).to.not.equal(undefined);
  });

  it('batches the existence checks of many Machines into a few instances.list calls, and never calls get for a listed one', async () => {
    const ms = await Promise.all(
      ['batch-1', 'batch-2', 'batch-3', 'batch-4', 'batch-5', 'batch-6'].map((n) => running(machine(n))),
    );
    calls.length = 0;
    const contexts = ms.map(() => recordingContext());
    const answers = await Promise.all(ms.map((m, i) => actuator.exists(m, contexts[i]!)));
    expect(answers).to.deep.equal([true, true, true, true, true, true]);
    expect(count(calls, 'listInstances')).to.be.lessThan(3);
    expect(count(calls, 'getInstance')).to.equal(0);
    // update() uses what exists() saw in the same reconcile.
    await actuator.update(ms[0]!, contexts[0]!);
    expect(count(calls, 'getInstance')).to.equal(0);
  });

  it("answers the echo of a reconcile's own write from what that reconcile read, once; any other pass reads afresh", async () => {
    const m = await running(machine('reuse-1'));
    const first = recordingContext();
    expect(await actuator.exists(m, first)).to.equal(true);
    calls.length = 0;
    expect(await actuator.exists(m, recordingContext()), 'another reconcile (a requeue, a Node event)').to.equal(true);
    expect(count(calls, 'listInstances') + count(calls, 'getInstance')).to.be.greaterThan(0);
    calls.length = 0;
    const echo = echoContext(first, recordingContext());
    expect(await actuator.exists(m, echo), 'the echo of the write').to.equal(true);
    expect(calls, 'answered from the read just made').to.deep.equal([]);
    emu.terminateOutOfBand('reuse-1');
    await eventually('the instance gone', async () => (emu.instance('reuse-1') ? undefined : true));
    expect(await actuator.exists(m, recordingContext()), 'the next pass reads afresh').to.equal(false);
  });

  it('confirms a list miss with instances.get, so a lagging list never makes an instance "gone"', async () => {
    emu.knobs.setVisibilityDelay(60_000, VIEW_LIST);
    const m = await running(machine('lag-1'));
    calls.length = 0;
    expect(await actuator.exists(m, recordingContext())).to.equal(true);
    expect(count(calls, 'getInstance')).to.be.greaterThan(0);
  });

  it('joins and leaves the target pools of the spec', async () => {
    const pool = `${CLUSTER_ID}-api`;
    const m = await running(machine('pool-1', gcpSpec({ targetPools: [pool] })));
    await actuator.update(m, recordingContext());
    const link = `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances/pool-1`;
    expect((await direct.getTargetPool(PROJECT, REGION, pool)).instances).to.include(link);
    await actuator.delete(m, recordingContext());
    expect((await direct.getTargetPool(PROJECT, REGION, pool)).instances ?? []).to.not.include(link);
  });

  it('registers a control-plane instance with its zone master instance group', async () => {
    const m = machine('master-1');
    m.metadata.labels = { ...m.metadata.labels, 'machine.openshift.io/cluster-api-machine-role': 'master' };
    await running(m);
    // Registered once RUNNING, as the reference does.
    await eventually('the instance to run', async () => {
      await actuator.exists(m, recordingContext());
      await actuator.update(m, recordingContext());
      return m.metadata.annotations?.['machine.openshift.io/instance-state'] === 'RUNNING' ? true : undefined;
    });
    const members = await direct.listInstanceGroupInstances(PROJECT, ZONE, `${CLUSTER_ID}-master-${ZONE}`, '');
    expect(members).to.include(
      `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances/master-1`,
    );
    await actuator.delete(m, recordingContext());
    expect(await direct.listInstanceGroupInstances(PROJECT, ZONE, `${CLUSTER_ID}-master-${ZONE}`, '')).to.not.include(
      `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances/master-1`,
    );
  });

  it('deletes with requestId = Machine UID and announces it once, however often delete is called', async () => {
    const m = await running(machine('del-1'));
    const ctx = recordingContext();
    await actuator.delete(m, ctx);
    await actuator.delete(m, ctx);
    const ids = calls.filter((c) => c.method === 'deleteInstance').map((c) => c.args[3]);
    expect(ids.length).to.be.greaterThan(0);
    expect(new Set(ids)).to.deep.equal(new Set([m.metadata.uid]));
    expect(ctx.recorded.filter((e) => e.reason === 'Delete')).to.have.length(1);
    expect(ctx.recorded.filter((e) => e.reason === 'FailedDelete')).to.have.length(0);
  });

  it('sends one delete: while the instance is STOPPING from it, the next passes only read (write quota is shared)', async () => {
    const slowDelete = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 20, deleteDelayMs: 600_000 });
    const deleteCalls: Call[] = [];
    const deleting = createGcpActuator({
      client: secretsClient(),
      clock: new RealClock(),
      endpoint: slowDelete.endpoint,
      batchWindowMs: 5,
      rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      requeueAfterMs: 50,
      createComputeApi: () =>
        recording(
          new SdkComputeApi({ apiEndpoint: slowDelete.endpoint, auth: { authClient: new PassThroughClient() } }),
          deleteCalls,
        ),
    });
    try {
      const m = machine('one-delete-1');
      await deleting.create(m, recordingContext());
      await eventually('the instance to be seen', async () =>
        (await deleting.exists(m, recordingContext()).catch(() => false)) ? true : undefined,
      );
      m.metadata.deletionTimestamp = new Date().toISOString();
      for (let pass = 0; pass < 3; pass++) await deleting.delete(m, recordingContext());
      expect(slowDelete.instance('one-delete-1')?.status).to.equal('STOPPING');
      expect(count(deleteCalls, 'deleteInstance')).to.equal(1);
      expect(count(deleteCalls, 'getInstance')).to.be.at.least(3);
    } finally {
      await deleting.close();
      await slowDelete.stop();
    }
  });

  it('says a Machine whose spec names a project that does not exist is misconfigured', async () => {
    const m = machine('noproject-1', gcpSpec({ projectID: 'no-such-project' }));
    m.spec = { ...m.spec, providerID: 'gce://no-such-project/us-central1-a/noproject-1' };
    const err = await rejection(actuator.exists(m, recordingContext()));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as InvalidMachineConfigurationError).field).to.equal('spec.providerSpec.value.projectID');
  });

  it('lets a new Machine in a zone that does not exist fail at create, naming the zone', async () => {
    const m = machine('nozone-1', gcpSpec({ zone: 'us-central1-z' }));
    expect(await actuator.exists(m, recordingContext())).to.equal(false);
    const err = await rejection(actuator.create(m, recordingContext()));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as InvalidMachineConfigurationError).field).to.equal('spec.providerSpec.value.zone');
  });

  it('never reports throttling as a misconfiguration', async () => {
    emu.knobs.throttleNext('*', 1000);
    const m = machine('throttled-1');
    const err = await rejection(actuator.create(m, recordingContext()));
    expect(isInvalidMachineConfiguration(err)).to.equal(false);
    // Refused outright: nothing was made, so nothing is on record to wait for.
    expect((m.status?.providerStatus as { instanceId?: string | null } | undefined)?.instanceId ?? undefined).to.equal(
      undefined,
    );
  });
});

/** The insert body the actuator would send for m. */
function bodyOf(m: Machine): Instance {
  return buildInstance(m, decodeProviderSpec(m.spec?.providerSpec?.value).spec, {
    project: PROJECT,
    clusterId: CLUSTER_ID,
    userData: '',
  });
}
