import { expect } from 'chai';
import fc from 'fast-check';
import {
  DurationError,
  formatGoDuration,
  formatGoDurationNs,
  parseGoDuration,
  parseGoDurationNs,
} from '../../../lib/apis/duration.js';

describe('parseGoDuration', () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['-0', 0],
    ['+0', 0],
    ['0s', 0],
    ['300s', 300_000],
    ['1m30s', 90_000],
    ['10m', 600_000],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['5.s', 5000],
    ['1h2m3s4ms', 3_723_004],
    ['2ms', 2],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['1500μs', 1.5],
    ['250ns', 0.00025],
    ['-1m', -60_000],
    ['+2s', 2000],
    ['1s1s', 2000],
  ];
  for (const [s, ms] of cases) {
    it(`reads "${s}" as ${ms} ms`, () => {
      expect(parseGoDuration(s)).to.equal(ms);
    });
  }

  it('is exact in nanoseconds', () => {
    expect(parseGoDurationNs('1.000000001s')).to.equal(1_000_000_001n);
    expect(parseGoDurationNs('0.1ns')).to.equal(0n);
    expect(parseGoDurationNs('2562047h47m16.854775807s')).to.equal((1n << 63n) - 1n);
    expect(parseGoDurationNs('-2562047h47m16.854775808s')).to.equal(-(1n << 63n));
  });

  it("rejects bad input with Go's messages", () => {
    expect(() => parseGoDuration('')).to.throw(DurationError, 'time: invalid duration ""');
    expect(() => parseGoDuration('s')).to.throw(DurationError, 'time: invalid duration "s"');
    expect(() => parseGoDuration('.s')).to.throw(DurationError, 'time: invalid duration ".s"');
    expect(() => parseGoDuration('-')).to.throw(DurationError, 'time: invalid duration "-"');
    expect(() => parseGoDuration('10')).to.throw(DurationError, 'time: missing unit in duration "10"');
    expect(() => parseGoDuration('1m30')).to.throw(DurationError, 'time: missing unit in duration "1m30"');
    expect(() => parseGoDuration('3d')).to.throw(DurationError, 'time: unknown unit "d" in duration "3d"');
    expect(() => parseGoDuration('5 m')).to.throw(DurationError, 'time: unknown unit " m" in duration "5 m"');
    expect(() => parseGoDuration('2562047h47m16.854775808s')).to.throw(DurationError, 'time: invalid duration');
  });
});

describe('formatGoDuration (Duration.String)', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [0.000001, '1ns'],
    [0.0011, '1.1µs'],
    [1.5, '1.5ms'],
    [500, '500ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [600_000, '10m0s'],
    [3_600_000, '1h0m0s'],
    [5_400_000, '1h30m0s'],
    [3_723_004, '1h2m3.004s'],
    [-60_000, '-1m0s'],
  ];
  for (const [ms, s] of cases) {
    it(`writes ${ms} ms as "${s}"`, () => {
      expect(formatGoDuration(ms)).to.equal(s);
    });
  }

  it('handles the int64 extremes', () => {
    expect(formatGoDurationNs((1n << 63n) - 1n)).to.equal('2562047h47m16.854775807s');
    expect(formatGoDurationNs(-(1n << 63n))).to.equal('-2562047h47m16.854775808s');
  });

  it('rejects non-finite input', () => {
    expect(() => formatGoDuration(Number.POSITIVE_INFINITY)).to.throw(DurationError);
  });

  it('parse(format(ns)) is the identity', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 62n), max: 1n << 62n }), (ns) => {
        expect(parseGoDurationNs(formatGoDurationNs(ns))).to.equal(ns);
      }),
    );
  });
});
