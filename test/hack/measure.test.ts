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
  it('gives each process the CPU seconds it used over the phase, the simulation as one', () => {
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
