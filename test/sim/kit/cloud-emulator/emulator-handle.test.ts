import { expect } from 'chai';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import { EmulatorFault, knobsFromOptions } from '../../../../sim/kit/index.js';

const wire = {
  classify: (a: string) => (a.startsWith('Get') ? 'read' : 'mutate'),
  throttleFault: () => ({ status: 429, code: 'SlowDown', message: 'slow' }),
  serverFault: () => ({ status: 500, code: 'Internal', message: 'boom' }),
};

describe('knobsFromOptions', () => {
  it("uses the options' clock and applies their initial knob settings with the cloud's fault shapes", async () => {
    const clock = new FakeClock();
    const knobs = knobsFromOptions({ clock, knobs: { failureRates: [{ match: 'mutate', probability: 1 }] } }, wire);
    expect(knobs.clock).to.equal(clock);
    await knobs.before('GetThing');
    const err = await knobs.before('PutThing').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(EmulatorFault);
    expect((err as EmulatorFault).code).to.equal('Internal');
  });

  it('seeds the RNG with 1 by default, and with the given seed otherwise', () => {
    const draw = (seed?: number) => knobsFromOptions({ seed }, wire).random.hex(16);
    expect(draw()).to.equal(draw(1));
    expect(draw(2)).to.not.equal(draw(1));
  });
});
