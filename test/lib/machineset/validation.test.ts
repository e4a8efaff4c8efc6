import { expect } from 'chai';
import type { MachineSet } from '../../../lib/apis/machine-types.js';
import { MachineSetValidationError, validateMachineSet } from '../../../lib/machineset/validation.js';

function ms(spec: Partial<NonNullable<MachineSet['spec']>>): MachineSet {
  return {
    metadata: { name: 'workers' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } } },
      ...spec,
    },
  };
}

describe('MachineSet validation', () => {
  it('accepts a selector that matches the template labels', () => {
    expect(validateMachineSet(ms({}))).to.deep.equal([]);
  });

  it('refuses unusable rollout annotations, which a bypassed webhook let through', () => {
    const set = ms({});
    set.metadata.annotations = { 'machine.openshift.io/rollout-max-surge': 'lots' };
    const errs = validateMachineSet(set);
    expect(errs.map((e) => e.field)).to.deep.equal(['metadata.annotations[machine.openshift.io/rollout-max-surge]']);
  });

  it('refuses an empty selector with the reference detail', () => {
    const errs = validateMachineSet(ms({ selector: {} }));
    expect(errs.map((e) => [e.field, e.detail])).to.deep.include([
      'spec.selector',
      'empty selector is not valid for MachineSet.',
    ]);
  });

  it('refuses a selector that does not match the template labels', () => {
    const errs = validateMachineSet(ms({ template: { metadata: { labels: { a: 'c' } } } }));
    expect(errs).to.have.length(1);
    expect(errs[0]).to.include({
      field: 'spec.template.metadata.labels',
      detail: '`selector` does not match template `labels`',
    });
  });

  it('refuses an invalid label key in the selector', () => {
    const errs = validateMachineSet(ms({ selector: { matchLabels: { 'bad key!': 'x' } } }));
    expect(errs[0]!.field).to.equal('spec.selector');
    expect(errs[0]!.detail).to.match(/^invalid label selector: /);
  });

  it('refuses an unknown delete policy and a missing or negative replica count', () => {
    expect(validateMachineSet(ms({ deletePolicy: 'Biggest' }))[0]).to.include({ field: 'spec.deletePolicy' });
    expect(validateMachineSet(ms({ replicas: undefined }))[0]).to.include({
      field: 'spec.replicas',
      detail: 'the Replicas field in Spec for machineset workers is nil, this should not be allowed',
    });
    expect(validateMachineSet(ms({ replicas: -1 }))[0]).to.include({ field: 'spec.replicas' });
  });

  it('names the MachineSet and aggregates several errors in one message', () => {
    const errs = validateMachineSet(ms({ selector: {}, template: { metadata: { labels: {} } }, replicas: -2 }));
    const err = new MachineSetValidationError('workers', errs);
    expect(err.message).to.match(
      /^"workers" machineset validation failed: \[spec\.selector: Invalid value: \{\}: empty selector is not valid for MachineSet\., spec\.replicas/,
    );
    expect(new MachineSetValidationError('w', [errs[0]!]).message).to.equal(
      '"w" machineset validation failed: spec.selector: Invalid value: {}: empty selector is not valid for MachineSet.',
    );
  });
});
