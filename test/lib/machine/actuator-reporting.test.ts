import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  emitUpdatedWhenChanged,
  failureStep,
  machineChangeFingerprint,
  reportActuatorFailures,
  scopeForDelete,
  setFailureReason,
} from '../../../lib/machine/actuator-reporting.js';
import { InvalidMachineConfigurationError, MissingSecretError, RequeueAfterError } from '../../../lib/apis/errors.js';
import { machineMetricsFor } from '../../../lib/machine/metrics.js';
import type { ActuatorContext } from '../../../lib/machine/actuator.js';
import { ListEvents, machine, quietLog } from './fixtures.js';

function context(): { ctx: ActuatorContext; events: ListEvents; reg: Registry } {
  const reg = new Registry();
  const events = new ListEvents();
  return {
    ctx: { signal: new AbortController().signal, log: quietLog, events, metrics: machineMetricsFor(reg) },
    events,
    reg,
  };
}

describe('actuator failure reporting', () => {
  it('counts a failed create under the reason of the step that failed and emits FailedCreate, rethrowing the same error', async () => {
    const { ctx, events, reg } = context();
    const boom = new Error('quota exceeded');
    const caught = await reportActuatorFailures(
      'create',
      machine('m1'),
      ctx,
      { reason: 'failed to create machine' },
      async () => {
        await failureStep('error creating instance', () => Promise.reject(boom));
      },
    ).catch((e: unknown) => e);
    expect(caught).to.equal(boom);
    expect(await reg.getSingleMetricAsString('mapi_instance_create_failed')).to.contain(
      'reason="error creating instance"} 1',
    );
    expect(events.list).to.deep.equal([
      {
        object: 'm1',
        type: 'Warning',
        reason: 'FailedCreate',
        action: 'Create',
        message: 'm1: reconciler failed to Create machine: quota exceeded',
      },
    ]);
  });

  it('falls back to the operation reason and uses the provider describe() for the event text', async () => {
    const { ctx, events, reg } = context();
    await reportActuatorFailures(
      'delete',
      machine('m2'),
      ctx,
      { reason: 'failed to delete machine', describe: () => 'described' },
      () => Promise.reject(new Error('raw')),
    ).catch(() => undefined);
    expect(await reg.getSingleMetricAsString('mapi_instance_delete_failed')).to.contain(
      'reason="failed to delete machine"} 1',
    );
    expect(events.list[0]?.message).to.equal('m2: reconciler failed to Delete machine: described');
  });

  it('keeps the innermost step reason when outer steps also name one', async () => {
    const { ctx, reg } = context();
    const err = new Error('x');
    setFailureReason(err, 'inner');
    await reportActuatorFailures('update', machine('m3'), ctx, { reason: 'op' }, () =>
      failureStep('outer', () => Promise.reject(err)),
    ).catch(() => undefined);
    expect(await reg.getSingleMetricAsString('mapi_instance_update_failed')).to.contain('reason="inner"} 1');
  });

  it('neither counts nor emits for a requeue, but still rethrows it', async () => {
    const { ctx, events, reg } = context();
    const requeue = new RequeueAfterError(100);
    const caught = await reportActuatorFailures('update', machine('m4'), ctx, { reason: 'op' }, () =>
      Promise.reject(requeue),
    ).catch((e: unknown) => e);
    expect(caught).to.equal(requeue);
    expect(events.list).to.have.length(0);
    expect(await reg.getSingleMetricAsString('mapi_instance_update_failed')).to.not.contain('m4');
  });

  it('counts a missing Secret but leaves its event to the machine controller, which reports it with a condition', async () => {
    const { ctx, events, reg } = context();
    const missing = new MissingSecretError('ns', 'creds', 'aws credentials');
    const caught = await reportActuatorFailures(
      'delete',
      machine('m5'),
      ctx,
      { reason: 'failed to delete machine' },
      () => Promise.reject(missing),
    ).catch((e: unknown) => e);
    expect(caught).to.equal(missing);
    expect(events.list).to.have.length(0);
    expect(await reg.getSingleMetricAsString('mapi_instance_delete_failed')).to.contain('name="m5"');
  });

  it('says "Updated Machine" only when update changed labels, annotations, spec or addresses of a machine that had an instance', () => {
    const { ctx, events } = context();
    const m = machine('m5');
    m.spec = { ...m.spec, providerID: 'fake:///zone/i-1' };
    const before = machineChangeFingerprint(m);
    emitUpdatedWhenChanged(m, ctx, before);
    expect(events.list).to.have.length(0);
    m.metadata.labels = { ...m.metadata.labels, 'machine.openshift.io/zone': 'a' };
    emitUpdatedWhenChanged(m, ctx, before);
    expect(events.list).to.deep.equal([
      { object: 'm5', type: 'Normal', reason: 'Update', action: 'Update', message: 'Updated Machine m5' },
    ]);
  });

  it('stays silent when only the instance state moved, or when update first records a new instance', () => {
    const { ctx, events } = context();
    const m = machine('m6');
    m.spec = { ...m.spec, providerID: 'fake:///zone/i-1' };
    const running = machineChangeFingerprint(m);
    m.metadata.annotations = { ...m.metadata.annotations, 'machine.openshift.io/instance-state': 'stopping' };
    m.status = { ...m.status, providerStatus: { instanceState: 'stopping' } };
    emitUpdatedWhenChanged(m, ctx, running);
    const fresh = machine('m7');
    const unrecorded = machineChangeFingerprint(fresh);
    fresh.spec = { ...fresh.spec, providerID: 'fake:///zone/i-2' };
    fresh.metadata.labels = { ...fresh.metadata.labels, 'machine.openshift.io/zone': 'a' };
    emitUpdatedWhenChanged(fresh, ctx, unrecorded);
    expect(events.list).to.have.length(0);
  });
});

describe('the scope of a delete', () => {
  const invalid = () =>
    Promise.reject(new InvalidMachineConfigurationError('zone is required', { field: 'spec.providerSpec.value.zone' }));

  it('asks to fix the spec, naming the field, when the machine already has an instance', async () => {
    const m = machine('with-instance');
    m.spec = { ...m.spec, providerID: 'gce://p/z/with-instance' };
    const err = await scopeForDelete(m, invalid, (e) => (e as Error).message).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as InvalidMachineConfigurationError).field).to.equal('spec.providerSpec.value.zone');
    expect((err as Error).message).to.equal(
      'the machine with-instance has invalid configuration, but already exists, make the configuration of the machine valid for the deletion to be successful: zone is required',
    );
  });

  it('keeps the plain error for a machine that never got an instance, and returns a scope that builds', async () => {
    const m = machine('never-created');
    const err = await scopeForDelete(m, invalid, () => 'unused').catch((e: unknown) => e);
    expect((err as Error).message).to.equal('zone is required');
    expect(
      await scopeForDelete(
        m,
        () => Promise.resolve('scope'),
        () => '',
      ),
    ).to.equal('scope');
  });
});
