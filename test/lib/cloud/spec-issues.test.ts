import { expect } from 'chai';
import { compactSpec, groupVersionKindWarning, throwOnFieldIssues } from '../../../lib/cloud/spec-issues.js';
import { InvalidMachineConfigurationError } from '../../../lib/machine/errors.js';

describe('providerSpec decode helpers', () => {
  it('compactSpec drops undefined members deeply and keeps nulls, falsy values and array order', () => {
    expect(compactSpec({ a: undefined, b: 0, c: null, d: { e: undefined, f: '' }, g: [{ h: undefined, i: false }, 2] })).to.deep.equal({
      b: 0,
      c: null,
      d: { f: '' },
      g: [{ i: false }, 2],
    });
  });

  it('throwOnFieldIssues names the first field and lists every issue; no issues, no error', () => {
    expect(() => throwOnFieldIssues([])).to.not.throw();
    try {
      throwOnFieldIssues([
        { field: 'spec.a', message: 'spec.a: Required value: x' },
        { field: 'spec.b', message: 'spec.b: Invalid value: y' },
      ]);
      expect.fail('no error');
    } catch (err) {
      expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
      expect((err as InvalidMachineConfigurationError).field).to.equal('spec.a');
      expect((err as Error).message).to.equal('spec.a: Required value: x; spec.b: Invalid value: y');
    }
  });

  it('groupVersionKindWarning warns only when apiVersion or kind is set and not the accepted pair', () => {
    const known = ['machine.openshift.io/v1beta1'];
    expect(groupVersionKindWarning({}, known, 'FooSpec')).to.equal(undefined);
    expect(groupVersionKindWarning({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'FooSpec' }, known, 'FooSpec')).to.equal(undefined);
    expect(groupVersionKindWarning({ kind: 'FooSpec' }, known, 'FooSpec')).to.equal('incorrect GroupVersionKind for FooSpec object: , Kind=FooSpec');
    expect(groupVersionKindWarning({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'Bar' }, known, 'FooSpec')).to.equal(
      'incorrect GroupVersionKind for FooSpec object: machine.openshift.io/v1beta1, Kind=Bar',
    );
  });
});
