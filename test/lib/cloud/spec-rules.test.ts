import { expect } from 'chai';
import { checkName, checkRange, isNonNegativeDecimal, type NameRule } from '../../../lib/cloud/spec-rules.js';

/** A literal pattern that counts how often it is run. */
class CountingRegExp extends RegExp {
  calls = 0;
  override test(s: string): boolean {
    this.calls++;
    return super.test(s);
  }
}

const RULE: NameRule = {
  pattern: /^[a-z]([-a-z0-9]*[a-z0-9])?$/,
  minLength: 2,
  maxLength: 8,
  description: 'lower-case letters',
};

describe('providerSpec field rules', () => {
  describe('checkName', () => {
    it('accepts a name within its length limits that matches the pattern', () => {
      expect(checkName('spec.n', 'ab-1', RULE)).to.equal(undefined);
    });

    it('reports a name over its limit as too long, before trying the pattern', () => {
      const pattern = new CountingRegExp('^x$');
      const issue = checkName('spec.n', `${'a'.repeat(5_000_000)}!`, { ...RULE, pattern });
      expect(issue?.field).to.equal('spec.n');
      expect(issue?.message).to.contain('Too long').and.contain('may not be longer than 8');
      expect(issue?.message).to.have.length.below(200);
      expect(pattern.calls).to.equal(0);
    });

    it('reports a short or off-pattern name with the rule in words', () => {
      expect(checkName('spec.n', 'a', RULE)?.message).to.equal(
        'spec.n: Invalid value: "a": must be 2 to 8 characters: lower-case letters',
      );
      expect(checkName('spec.n', '../x', RULE)?.field).to.equal('spec.n');
      expect(checkName('spec.n', 'ab-', RULE)?.field).to.equal('spec.n');
    });
  });

  it('checkRange reports integers outside the closed range, with the unit', () => {
    expect(checkRange('spec.s', 0, 0, 10)).to.equal(undefined);
    expect(checkRange('spec.s', 10, 0, 10)).to.equal(undefined);
    expect(checkRange('spec.s', -1, 0, 10)?.message).to.equal('spec.s: Invalid value: -1: must be between 0 and 10');
    expect(checkRange('spec.s', 1e12, 0, 16384, 'GiB')?.message).to.equal(
      'spec.s: Invalid value: 1000000000000: must be between 0 and 16384 GiB',
    );
  });

  it('isNonNegativeDecimal takes digits with at most one point, and no sign, exponent or blanks', () => {
    for (const ok of ['0', '0.05', '12', '12.50']) expect(isNonNegativeDecimal(ok), ok).to.equal(true);
    for (const bad of ['-1', '+1', '1e3', '.5', '5.', '1.2.3', ' 1', 'NaN', 'Infinity', '', '0x10'])
      expect(isNonNegativeDecimal(bad), bad).to.equal(false);
  });
});
