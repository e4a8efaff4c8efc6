import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  machineMetricsFor,
  PhaseTransitionBuckets,
  recordInstanceCreateFailed,
  recordInstanceDeleteFailed,
  recordInstanceUpdateFailed,
} from '../../../lib/machine/metrics.js';

describe('machine metrics', () => {
  it('exports the phase histogram with the reference buckets', async () => {
    const reg = new Registry();
    machineMetricsFor(reg).observePhaseTransition('Running', 42);
    const text = await reg.getSingleMetricAsString('mapi_machine_phase_transition_seconds');
    for (const b of PhaseTransitionBuckets) expect(text).to.contain(`le="${b}",phase="Running"`);
    expect(text).to.contain('mapi_machine_phase_transition_seconds_count{phase="Running"} 1');
  });

  it('counts instance failures by name, namespace and reason for providers, via a registry or the context object', async () => {
    const reg = new Registry();
    recordInstanceCreateFailed(reg, { name: 'm', namespace: 'ns', reason: 'InsufficientInstanceCapacity' });
    recordInstanceCreateFailed(machineMetricsFor(reg), {
      name: 'm',
      namespace: 'ns',
      reason: 'InsufficientInstanceCapacity',
    });
    recordInstanceUpdateFailed(reg, { name: 'm', namespace: 'ns', reason: 'x' });
    recordInstanceDeleteFailed(undefined, { name: 'm', namespace: 'ns', reason: 'ignored without a sink' });
    expect(await reg.getSingleMetricAsString('mapi_instance_create_failed')).to.contain(
      'mapi_instance_create_failed{name="m",namespace="ns",reason="InsufficientInstanceCapacity"} 2',
    );
    expect(await reg.getSingleMetricAsString('mapi_instance_update_failed')).to.contain('reason="x"} 1');
    expect(await reg.getSingleMetricAsString('mapi_instance_delete_failed')).to.not.contain('ignored');
  });

  it('does not define the operator-collector metrics that lib/machineset owns', async () => {
    const reg = new Registry();
    machineMetricsFor(reg);
    expect(reg.getSingleMetric('mapi_machine_items')).to.equal(undefined);
    expect(reg.getSingleMetric('mapi_machine_created_timestamp_seconds')).to.equal(undefined);
  });
});
