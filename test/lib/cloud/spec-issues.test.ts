import { expect } from 'chai';
import {
  MAX_LISTED_ISSUES,
  compactSpec,
  groupVersionKindWarning,
  setOwn,
  throwOnFieldIssues,
} from '../../../lib/cloud/spec-issues.js';
import { InvalidMachineConfigurationError } from '../../../lib/apis/errors.js';

describe('providerSpec decode helpers', () => {
  it('compactSpec drops undefined members deeply and keeps nulls, falsy values and array order', () => {
    expect(
      compactSpec({ a: undefined, b: 0, c: null, d: { e: undefined, f: '' }, g: [{ h: undefined, i: false }, 2] }),
    ).to.deep.equal({
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

  it('compactSpec keeps a "__proto__" key as an ordinary own entry instead of replacing the prototype', () => {
    const out = compactSpec(JSON.parse('{"labels":{"__proto__":"x","ok":"y"}}') as { labels: Record<string, string> });
    expect(Object.keys(out.labels)).to.deep.equal(['__proto__', 'ok']);
    expect(Object.getPrototypeOf(out.labels)).to.equal(Object.prototype);
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', { polluted: true });
    expect(Object.hasOwn(target, '__proto__')).to.equal(true);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it(`throwOnFieldIssues lists at most ${MAX_LISTED_ISSUES} issues and counts the rest`, () => {
    const issues = Array.from({ length: 1000 }, (_, i) => ({
      field: `spec.f${i}`,
      message: `spec.f${i}: Invalid value`,
    }));
    try {
      throwOnFieldIssues(issues);
      expect.fail('no error');
    } catch (err) {
      expect((err as InvalidMachineConfigurationError).field).to.equal('spec.f0');
      const message = (err as Error).message;
      expect(message.split('; ')).to.have.length(MAX_LISTED_ISSUES + 1);
      expect(message.endsWith(`and ${1000 - MAX_LISTED_ISSUES} more`)).to.equal(true);
    }
  });

  it('groupVersionKindWarning warns only when apiVersion or kind is set and not the accepted pair', () => {
    const known = ['machine.openshift.io/v1beta1'];
    expect(groupVersionKindWarning({}, known, 'FooSpec')).to.equal(undefined);
    expect(
      groupVersionKindWarning({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'FooSpec' }, known, 'FooSpec'),
    ).to.equal(undefined);
    expect(groupVersionKindWarning({ kind: 'FooSpec' }, known, 'FooSpec')).to.equal(
      'incorrect GroupVersionKind for FooSpec object: , Kind=FooSpec',
    );
    expect(
      groupVersionKindWarning({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'Bar' }, known, 'FooSpec'),
    ).to.equal('incorrect GroupVersionKind for FooSpec object: machine.openshift.io/v1beta1, Kind=Bar');
  });
});
