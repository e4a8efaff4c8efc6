// The actuator's handling of a slow insert operation, with a fake ComputeApi and a FakeClock (no waiting on
// wall time): it waits up to operationWaitMs, then requeues with the instance name already on record.
import { expect } from 'chai';
import { FakeClock, RequeueAfterError } from '../../../lib/index.js';
import { createGcpActuator, type CallOptions, type ComputeApi } from '../../../providers/gcp/index.js';
import { machine, recordingContext, secretsClient } from './fixtures.js';

function slowCompute(waits: { count: number }): ComputeApi {
  return {
    getImage: async () => ({ guestOsFeatures: [{ type: 'UEFI_COMPATIBLE' }] }),
    insertInstance: async () => ({ name: 'operation-1', status: 'RUNNING' }),
    waitZoneOperation: (_p: string, _z: string, _o: string, opts?: CallOptions) =>
      new Promise((_resolve, reject) => {
        waits.count++;
        opts?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
  } as unknown as ComputeApi;
}

describe('GCP actuator and slow insert operations', () => {
  it('waits on the zone operation up to operationWaitMs, then requeues with the instance name recorded', async () => {
    const clock = new FakeClock();
    const waits = { count: 0 };
    const actuator = createGcpActuator({ client: secretsClient(), clock, createComputeApi: () => slowCompute(waits), operationWaitMs: 30_000, requeueAfterMs: 7_000 });
    const m = machine('slow-1');
    const pending = actuator.create(m, recordingContext()).then(
      () => undefined,
      (e: unknown) => e,
    );
    for (let i = 0; i < 100 && waits.count === 0; i++) await new Promise((r) => setImmediate(r));
    expect(waits.count).to.equal(1);
    clock.step(29_999);
    await new Promise((r) => setImmediate(r));
    expect(await Promise.race([pending, Promise.resolve('still waiting')])).to.equal('still waiting');
    clock.step(1);
    const err = await pending;
    expect(err).to.be.instanceOf(RequeueAfterError);
    expect((err as RequeueAfterError).requeueAfterMs).to.equal(7_000);
    expect(m.status?.providerStatus).to.deep.include({ instanceId: 'slow-1' });
    expect(m.spec?.providerID).to.equal(undefined);
    await actuator.close();
  });
});
