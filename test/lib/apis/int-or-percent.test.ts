import { expect } from 'chai';
import {
  IntOrPercentError,
  parseIntOrPercent,
  resolveMaxUnhealthy,
  scaledValueFromIntOrPercent,
} from '../../../lib/apis/int-or-percent.js';

describe('int-or-percent values', () => {
  it('parses ints, integer strings and percentages', () => {
    expect(parseIntOrPercent(3)).to.deep.equal({ value: 3, isPercent: false });
    expect(parseIntOrPercent('3')).to.deep.equal({ value: 3, isPercent: false });
    expect(parseIntOrPercent('+3')).to.deep.equal({ value: 3, isPercent: false });
    expect(parseIntOrPercent('-1')).to.deep.equal({ value: -1, isPercent: false });
    expect(parseIntOrPercent('40%')).to.deep.equal({ value: 40, isPercent: true });
    expect(parseIntOrPercent('007%')).to.deep.equal({ value: 7, isPercent: true });
  });

  it("rejects anything else with the reference's message", () => {
    expect(() => parseIntOrPercent('abc')).to.throw(
      IntOrPercentError,
      'invalid value for IntOrString: invalid value "abc": strconv.Atoi: parsing "abc": invalid syntax',
    );
    expect(() => parseIntOrPercent('40.5%')).to.throw(
      IntOrPercentError,
      'invalid value for IntOrString: invalid value "40.5%": strconv.Atoi: parsing "40.5": invalid syntax',
    );
    expect(() => parseIntOrPercent('%')).to.throw(IntOrPercentError, 'strconv.Atoi: parsing "": invalid syntax');
    expect(() => parseIntOrPercent('')).to.throw(
      IntOrPercentError,
      'invalid value "": strconv.Atoi: parsing "": invalid syntax',
    );
    expect(() => parseIntOrPercent(' 4')).to.throw(IntOrPercentError, 'invalid syntax');
    expect(() => parseIntOrPercent('99999999999999999999')).to.throw(IntOrPercentError, 'value out of range');
    expect(() => parseIntOrPercent(1.5)).to.throw(IntOrPercentError);
    expect(() => parseIntOrPercent(true as never)).to.throw(IntOrPercentError, 'neither int nor percentage');
  });

  it('scales percentages of the total, rounding down unless asked to round up', () => {
    expect(scaledValueFromIntOrPercent('40%', 5)).to.equal(2);
    expect(scaledValueFromIntOrPercent('40%', 5, true)).to.equal(2);
    expect(scaledValueFromIntOrPercent('30%', 5)).to.equal(1);
    expect(scaledValueFromIntOrPercent('30%', 5, true)).to.equal(2);
    expect(scaledValueFromIntOrPercent('100%', 7)).to.equal(7);
    expect(scaledValueFromIntOrPercent('0%', 7)).to.equal(0);
    expect(scaledValueFromIntOrPercent('2', 100)).to.equal(2);
    expect(scaledValueFromIntOrPercent(2, 100)).to.equal(2);
  });
});

describe('resolveMaxUnhealthy (the MachineHealthCheck remediation budget)', () => {
  it('an unset maxUnhealthy allows every expected machine to be unhealthy', () => {
    expect(resolveMaxUnhealthy(undefined, 6)).to.equal(6);
    expect(resolveMaxUnhealthy(null, 0)).to.equal(0);
  });

  it('"N" is N machines, not N percent', () => {
    expect(resolveMaxUnhealthy('1', 10)).to.equal(1);
    expect(resolveMaxUnhealthy(3, 10)).to.equal(3);
  });

  it('"N%" is floor(N × expected / 100)', () => {
    expect(resolveMaxUnhealthy('40%', 3)).to.equal(1);
    expect(resolveMaxUnhealthy('100%', 3)).to.equal(3);
    expect(resolveMaxUnhealthy('0%', 3)).to.equal(0);
  });

  it('clamps a negative result to 0', () => {
    expect(resolveMaxUnhealthy(-1, 3)).to.equal(0);
    expect(resolveMaxUnhealthy('-50%', 4)).to.equal(0);
  });

  it('throws IntOrPercentError for an unparseable value', () => {
    expect(() => resolveMaxUnhealthy('lots', 3)).to.throw(IntOrPercentError, 'invalid value "lots"');
  });
});
