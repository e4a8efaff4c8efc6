// The actuator and inserts GCE accepted but no read shows yet, with a fake ComputeApi and a FakeClock (no
// waiting on wall time): create() never waits for the boot, exists() and delete() wait (requeue) for an unseen
// instance only within the eventual-consistency window, and a restart loses nothing that matters.
import { expect } from 'chai';
import {
  DEFAULT_VISIBILITY_WINDOW_MS,
  FakeClock,
  InsufficientCapacityError,
  RequeueAfterError,
  findError,
  type Machine,
} from '../../../lib/index.js';
import { createGcpActuator, type ComputeApi, type GcpActuator, type Operation } from '../../../providers/gcp/index.js';
import { machine, recordingContext, secretsClient } from './fixtures.js';

const WINDOW_MS = 60_000;

interface Fake {
  compute: ComputeApi;
  calls: string[];
  requestIds: string[];
  /** What zoneOperations.get answers. */
  operation: Operation;
}

const notFound = () => Object.assign(new Error('The resource was not found'), { code: 404 });

/** A GCE that accepts every insert and never shows the instance to any read. */
function invisibleGce(): Fake {
  const fake: Fake = {
    calls: [],
    requestIds: [],
    operation: { name: 'operation-1', status: 'RUNNING' },
    compute: undefined as unknown as ComputeApi,
  };
  const api: Partial<ComputeApi> = {
    getImage: () => Promise.resolve({ guestOsFeatures: [{ type: 'UEFI_COMPATIBLE' }] }),
    insertInstance: (_p, _z, _i, requestId) => {
      fake.requestIds.push(requestId);
      return Promise.resolve({ name: 'operation-1', status: 'PENDING' });
    },
    listInstances: () => Promise.resolve([]),
    getInstance: () => Promise.reject(notFound()),
    getZoneOperation: () => Promise.resolve(fake.operation),
    deleteInstance: () => Promise.resolve({ name: 'operation-2', status: 'PENDING' }),
  };
  fake.compute = new Proxy(api as ComputeApi, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        fake.calls.push(String(prop));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return fake;
}

/** The value or the error `p` settles with ('resolved' for a void success). */
function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => v ?? 'resolved',
    (e: unknown) => e,
  );
}

describe('GCP actuator and inserts no read shows yet', () => {
  let clock: FakeClock;
  let fake: Fake;
  let actuators: GcpActuator[];

  const newActuator = (): GcpActuator => {
    const a = createGcpActuator({
      client: secretsClient(),
      clock,
      createComputeApi: () => fake.compute,
      batchWindowMs: 0,
      requeueAfterMs: 20_000,
      eventualConsistencyWindowMs: WINDOW_MS,
    });
    actuators.push(a);
    return a;
  };

  beforeEach(() => {
    clock = new FakeClock(Date.parse('2026-11-22T08:00:00Z'));
    fake = invisibleGce();
    actuators = [];
  });

  afterEach(async () => {
    for (const a of actuators) await a.close();
  });

  /**
   * Settles `p` while firing the batcher's zero-delay timers on the fake clock (time does not move), for a
   * bounded number of turns.
   */
  async function drive<T>(p: Promise<T>): Promise<T> {
    let done = false;
    const watched = p.finally(() => {
      done = true;
    });
    for (let i = 0; i < 1_000 && !done; i++) {
      clock.step(0);
      await new Promise((r) => setImmediate(r));
    }
    return watched;
  }

  const deleting = (m: Machine): Machine => ({
    ...m,
    metadata: { ...m.metadata, deletionTimestamp: new Date(clock.now()).toISOString() },
  });

  it('returns from create as soon as GCE accepts the insert, without waiting on its operation or reading the instance', async () => {
    const m = machine('fast-1');
    await newActuator().create(m, recordingContext());
    expect(fake.calls).to.deep.equal(['getImage', 'insertInstance']);
    expect(m.status?.providerStatus).to.deep.include({ instanceId: 'fast-1' });
  });

  it('waits (requeues) on an inserted instance no read shows, in exists() and delete(), within the window only', async () => {
    const actuator = newActuator();
    const m = machine('unseen-1');
    await actuator.create(m, recordingContext());
    fake.operation = { name: 'operation-1', status: 'DONE' };

    const early = await drive(rejection(actuator.exists(m, recordingContext())));
    expect(early).to.be.instanceOf(RequeueAfterError);
    // The first look again comes within about a second, growing while the wait lasts.
    expect((early as RequeueAfterError).requeueAfterMs).to.equal(1_000);
    expect(await drive(rejection(actuator.delete(deleting(m), recordingContext())))).to.be.instanceOf(
      RequeueAfterError,
    );
    expect(fake.calls).to.not.include('deleteInstance');

    clock.step(WINDOW_MS);
    expect(await drive(actuator.exists(m, recordingContext()))).to.equal(false);
    expect(await drive(rejection(actuator.delete(deleting(m), recordingContext())))).to.equal('resolved');
  });

  it('lets deletion go on at once when the insert operation says the insert failed (nothing was made)', async () => {
    const actuator = newActuator();
    const m = machine('failed-1');
    await actuator.create(m, recordingContext());
    fake.operation = {
      name: 'operation-1',
      status: 'DONE',
      error: { errors: [{ code: 'ZONE_RESOURCE_POOL_EXHAUSTED', message: 'no capacity' }] },
    };
    expect(await drive(rejection(actuator.delete(deleting(m), recordingContext())))).to.equal('resolved');
    expect(fake.calls.filter((c) => c === 'getZoneOperation')).to.have.length(1);
  });

  it('after an insert fails in its operation, reports it once; the next create sends a new insert at once (the controller paces it)', async () => {
    const actuator = newActuator();
    const m = machine('quota-1');
    fake.operation = {
      name: 'operation-1',
      status: 'DONE',
      error: { errors: [{ code: 'QUOTA_EXCEEDED', message: "Quota 'CPUS' exceeded" }] },
    };
    const inserts = () => fake.calls.filter((c) => c === 'insertInstance').length;
    for (const n of [1, 2]) {
      await actuator.create(m, recordingContext());
      expect(inserts()).to.equal(n);
      expect(await drive(actuator.exists(m, recordingContext()))).to.equal(false);
      expect(String(await rejection(actuator.create(m, recordingContext())))).to.contain('QUOTA_EXCEEDED');
      expect(inserts()).to.equal(n);
    }
    // Each insert after a failed one is a new GCE request.
    expect(new Set(fake.requestIds).size).to.equal(2);
  });

  it('reports a stock-out in the insert operation as InsufficientCapacityError quoting the code, with the zone and machine type', async () => {
    const actuator = newActuator();
    const m = machine('stockout-1');
    await actuator.create(m, recordingContext());
    fake.operation = {
      name: 'operation-1',
      status: 'DONE',
      error: { errors: [{ code: 'ZONE_RESOURCE_POOL_EXHAUSTED', message: 'no capacity' }] },
    };
    expect(await drive(actuator.exists(m, recordingContext()))).to.equal(false);
    const err = findError(await rejection(actuator.create(m, recordingContext())), InsufficientCapacityError);
    const spec = m.spec?.providerSpec?.value as { zone: string; machineType: string };
    expect(err).to.include({
      cloudCode: 'ZONE_RESOURCE_POOL_EXHAUSTED',
      zone: spec.zone,
      instanceType: spec.machineType,
      detail: 'no capacity',
      reason: 'InsufficientResources',
    });
  });

  it('after a restart, lets create() send the insert again under the same requestId, and keeps deletion waiting', async () => {
    const m = machine('restart-1');
    await newActuator().create(m, recordingContext());
    const restarted = newActuator();
    // Not deleting: "does not exist" makes the machine controller call create(), which GCE answers with the
    // operation of the first insert.
    expect(await drive(restarted.exists(m, recordingContext()))).to.equal(false);
    await restarted.create(m, recordingContext());
    expect(fake.requestIds).to.have.length(2);
    expect(fake.requestIds[1]).to.equal(fake.requestIds[0]);
    const again = newActuator();
    expect(await drive(rejection(again.delete(deleting(m), recordingContext())))).to.be.instanceOf(RequeueAfterError);
    expect(await drive(rejection(again.exists(deleting(m), recordingContext())))).to.be.instanceOf(RequeueAfterError);
  });

  it('keeps deleting an instance once on record that a read no longer shows until the visibility window has passed', async () => {
    const actuator = newActuator();
    const m = machine('seen-1');
    await actuator.create(m, recordingContext());
    // Seen once: update recorded its state and providerID.
    m.status = { ...m.status, providerStatus: { ...(m.status?.providerStatus as object), instanceState: 'RUNNING' } };
    m.spec = { ...m.spec, providerID: 'gce://p/z/seen-1' };
    // RUNNING on record is not "seen terminating": a read that misses it may lag, so the finalizer stays.
    expect(await drive(rejection(actuator.delete(deleting(m), recordingContext())))).to.be.instanceOf(
      RequeueAfterError,
    );
    clock.step(DEFAULT_VISIBILITY_WINDOW_MS);
    expect(await drive(rejection(actuator.delete(deleting(m), recordingContext())))).to.equal('resolved');
    expect(fake.calls).to.not.include('getZoneOperation');
  });
});
