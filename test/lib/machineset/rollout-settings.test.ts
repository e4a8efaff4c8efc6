import { expect } from 'chai';
import type { MachineSet } from '../../../lib/apis/machine-types.js';
import { readRolloutSettings } from '../../../lib/machineset/rollout-settings.js';
import { formatFieldError } from '../../../lib/machineset/validation.js';

const withAnnotations = (annotations: Record<string, string>): MachineSet => ({
  metadata: { name: 'workers', annotations },
  spec: { selector: {} },
});
const errorsOf = (annotations: Record<string, string>) =>
  readRolloutSettings(withAnnotations(annotations)).errors.map(formatFieldError);

describe('rollout settings from MachineSet annotations', () => {
  it('defaults to OnDelete, surge 1, unavailable 0, not paused', () => {
    expect(readRolloutSettings(withAnnotations({})).settings).to.deep.equal({
      strategy: 'OnDelete',
      maxSurge: '1',
      maxUnavailable: '0',
      paused: false,
    });
  });

  it('reads every annotation', () => {
    const got = readRolloutSettings(
      withAnnotations({
        'machine.openshift.io/rollout-strategy': 'RollingUpdate',
        'machine.openshift.io/rollout-max-surge': '50%',
        'machine.openshift.io/rollout-max-unavailable': '1',
        'machine.openshift.io/rollout-paused': 'true',
        'machine.openshift.io/rollout-restart': '2026-11-28T09:00:00Z',
      }),
    );
    expect(got.settings).to.deep.equal({
      strategy: 'RollingUpdate',
      maxSurge: '50%',
      maxUnavailable: '1',
      paused: true,
      restart: '2026-11-28T09:00:00Z',
    });
  });

  it('refuses an unknown strategy, naming the annotation and the values', () => {
    expect(errorsOf({ 'machine.openshift.io/rollout-strategy': 'Recreate' })).to.deep.equal([
      'metadata.annotations[machine.openshift.io/rollout-strategy]: Invalid value: "Recreate": must be one of "OnDelete", "RollingUpdate"',
    ]);
  });

  it('refuses numbers that are not non-negative integers or percentages', () => {
    for (const bad of ['one', '1.5', '-1', '%', '25 %', '']) {
      const errors = errorsOf({ 'machine.openshift.io/rollout-max-surge': bad });
      expect(errors, bad).to.have.length(1);
      expect(errors[0]).to.contain('metadata.annotations[machine.openshift.io/rollout-max-surge]');
    }
    expect(errorsOf({ 'machine.openshift.io/rollout-max-unavailable': '101%' })).to.deep.equal([
      'metadata.annotations[machine.openshift.io/rollout-max-unavailable]: Invalid value: "101%": must not be greater than 100%',
    ]);
    expect(errorsOf({ 'machine.openshift.io/rollout-max-surge': '200%' })).to.deep.equal([]);
  });

  it('refuses surge 0 with unavailable 0, the default included', () => {
    const errors = errorsOf({ 'machine.openshift.io/rollout-max-surge': '0' });
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(
      /^metadata\.annotations\[machine\.openshift\.io\/rollout-max-unavailable\]: Invalid value: "0": may not be 0 when machine\.openshift\.io\/rollout-max-surge is 0/,
    );
    expect(
      errorsOf({
        'machine.openshift.io/rollout-max-surge': '0%',
        'machine.openshift.io/rollout-max-unavailable': '0%',
      }),
    ).to.have.length(1);
    expect(
      errorsOf({ 'machine.openshift.io/rollout-max-surge': '0', 'machine.openshift.io/rollout-max-unavailable': '1' }),
    ).to.deep.equal([]);
  });

  it('refuses a paused value other than true or false, and an oversized restart value', () => {
    expect(errorsOf({ 'machine.openshift.io/rollout-paused': 'yes' })).to.deep.equal([
      'metadata.annotations[machine.openshift.io/rollout-paused]: Invalid value: "yes": must be "true" or "false"',
    ]);
    expect(errorsOf({ 'machine.openshift.io/rollout-restart': 'x'.repeat(257) })[0]).to.contain(
      'must be no more than 256 characters',
    );
  });
});
