// What every provider binary registers: the machine controller and scale-from-zero always, NodeLink only when
// asked, because the operator runs NodeLink as its own nodelink-controller container.
import { expect } from 'chai';
import {
  addProviderControllers,
  buildProviderProgram,
  providerControllerFlags,
  readStandardFlags,
} from '../../../cmd/internal/index.js';
import { TableInstanceTypeCatalog } from '../../../lib/index.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { fakeManager } from '../../lib/machine/fake-manager.js';
import { maoArgs } from '../mao-args.js';

const noCatalog = new TableInstanceTypeCatalog([], () => '');

function controllersFor(args: string[]): string[] {
  const program = buildProviderProgram(
    {},
    { component: 'machine-api-provider-test', leaderElectionId: 'test-leader', cloud: 'Test' },
  ).exitOverride();
  program.parse(args, { from: 'user' });
  const { mgr, controllers } = fakeManager();
  addProviderControllers(
    mgr,
    new FakeActuator(),
    noCatalog,
    providerControllerFlags(program, readStandardFlags(program)),
  );
  return controllers.map((c) => c.name);
}

describe('provider binary controllers', () => {
  it("runs the machine, drain and scale-from-zero controllers but not NodeLink with the operator's arguments", () => {
    const names = controllersFor(maoArgs.machineController('aws'));
    expect(names).to.include.members([
      'machine-controller',
      'machine-drain-controller',
      'machineset-scale-from-zero-controller',
    ]);
    expect(names).to.not.include('nodelink-controller');
  });

  it("also runs NodeLink with --with-nodelink, in any of Go's bool spellings", () => {
    for (const flag of ['--with-nodelink', '--with-nodelink=true', '--with-nodelink=1', '--with-nodelink=T']) {
      expect(controllersFor([...maoArgs.machineController('gcp'), flag]), flag).to.include('nodelink-controller');
    }
    expect(controllersFor([...maoArgs.machineController('gcp'), '--with-nodelink=false'])).to.not.include(
      'nodelink-controller',
    );
  });

  describe('--capacity-retry-window', () => {
    const windowFor = (args: string[]): number | undefined => {
      const program = buildProviderProgram(
        {},
        { component: 'machine-api-provider-test', leaderElectionId: 'test-leader', cloud: 'Test' },
      ).exitOverride();
      program.configureOutput({ writeErr: () => {} });
      program.parse(args, { from: 'user' });
      return providerControllerFlags(program, readStandardFlags(program)).machineController?.capacityRetryWindowMs;
    };

    it("defaults to two minutes with the operator's arguments", () => {
      expect(windowFor(maoArgs.machineController('aws'))).to.equal(120_000);
    });

    it('takes a Go duration, and 0 (fail at once, as the reference does)', () => {
      expect(windowFor(['--capacity-retry-window=90s'])).to.equal(90_000);
      expect(windowFor(['--capacity-retry-window', '1m30s'])).to.equal(90_000);
      expect(windowFor(['--capacity-retry-window=0'])).to.equal(0);
    });

    it('refuses what is not a duration, or a negative one, naming the flag', () => {
      expect(() => windowFor(['--capacity-retry-window=soon'])).to.throw(/--capacity-retry-window/);
      expect(() => windowFor(['--capacity-retry-window=-5s'])).to.throw(/--capacity-retry-window must not be negative/);
    });
  });
});
