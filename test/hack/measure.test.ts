// What a bench phase cost, from two snapshots: CPU seconds per process beside the calls and reconciles.
import { expect } from 'chai';
import { cost, SIMULATION_CPU, type Snapshot } from '../../hack/bench/measure.js';

const snap = (at: number, cpu: Record<string, number>, reconciles: Record<string, number> = {}): Snapshot => ({
  at,
  ec2: {},
  kubeByAgent: {},
  reconciles,
  cpuSeconds: cpu,
});

describe('bench phase cost', () => {
  it('counts the reconciles of the phase per controller and per result, so a requeue shows beside the resyncs', () => {
    const before = {
      ...snap(0, {}, { 'machine-controller': 100 }),
      reconcileResults: { 'machine-controller|success': 100 },
    };
    const after = {
      ...snap(1_000, {}, { 'machine-controller': 160 }),
      reconcileResults: { 'machine-controller|success': 150, 'machine-controller|requeue_after': 10 },
    };
    const c = cost(before, after);
    expect(c.reconciles).to.deep.equal({ 'machine-controller': 60 });
    expect(c.reconcileResults).to.deep.equal({
      'machine-controller|success': 50,
      'machine-controller|requeue_after': 10,
    });
    expect(cost(snap(0, {}), snap(1, {})).reconcileResults, 'snapshots without results').to.deep.equal({});
  });

  it('gives each process the CPU seconds it used over the phase, the emulator and kubelet simulator as one', () => {
    const c = cost(
      snap(1_000, { [SIMULATION_CPU]: 10, 'machine-api-provider-aws': 2.5, 'nodelink-controller': 1 }),
      snap(31_000, { [SIMULATION_CPU]: 22.125, 'machine-api-provider-aws': 7.25, 'nodelink-controller': 1.5 }),
    );
    expect(c.seconds).to.equal(30);
    expect(c.cpuSeconds).to.deep.equal({
      [SIMULATION_CPU]: 12.13,
      'machine-api-provider-aws': 4.75,
      'nodelink-controller': 0.5,
    });
  });
});
