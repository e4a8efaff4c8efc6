import { expect } from 'chai';
import fc from 'fast-check';
import {
  QuantityError,
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  mebibytesToQuantityString,
  parseQuantity,
  quantityAsNumber,
  quantityFromNumber,
  quantityMilliValue,
  quantityStringToMebibytes,
  quantityValue,
} from '../../../lib/apis/quantity.js';

describe('parseQuantity', () => {
  const values: Array<[string, number]> = [
    ['0', 0],
    ['4', 4],
    ['+4', 4],
    ['-4', -4],
    ['500m', 0.5],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['1.', 1],
    ['1.5k', 1500],
    ['1Ki', 1024],
    ['16Gi', 17179869184],
    ['16384Mi', 17179869184],
    ['16G', 16e9],
    ['1e3', 1000],
    ['1E3', 1000],
    ['1E', 1e18],
    ['2e-3', 0.002],
    ['250u', 0.00025],
    ['3n', 3e-9],
  ];
  for (const [s, v] of values) {
    it(`reads "${s}" as ${v}`, () => {
      expect(quantityAsNumber(parseQuantity(s))).to.equal(v);
    });
  }

  it('records the format the suffix implies', () => {
    expect(parseQuantity('1Mi').format).to.equal('BinarySI');
    expect(parseQuantity('1M').format).to.equal('DecimalSI');
    expect(parseQuantity('1').format).to.equal('DecimalSI');
    expect(parseQuantity('1e6').format).to.equal('DecimalExponent');
  });

  it('rounds precision finer than nano-units up, away from zero', () => {
    expect(parseQuantity('0.1n').nanos).to.equal(1n);
    expect(parseQuantity('-0.1n').nanos).to.equal(-1n);
    expect(parseQuantity('1.0000000001').nanos).to.equal(1_000_000_001n);
  });

  it('rejects malformed quantities, naming the input', () => {
    for (const s of ['', ' 4', '4 ', 'abc', '1K', '1kb', '1mi', '--1', '.', '1..2', 'Mi', '1e', '1ee3', '1.5.5']) {
      expect(() => parseQuantity(s), s).to.throw(QuantityError, JSON.stringify(s));
    }
  });
});

describe('formatQuantity (canonical form)', () => {
  const canonical: Array<[string, string]> = [
    ['0', '0'],
    ['0Mi', '0'],
    ['4', '4'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['1200000', '1200k'],
    ['1.5k', '1500'],
    ['0.5', '500m'],
    ['1500m', '1500m'],
    ['16384Mi', '16Gi'],
    ['1536Mi', '1536Mi'],
    ['1024', '1024'],
    ['1024Ki', '1Mi'],
    ['512Ki', '512Ki'],
    ['1Ki', '1Ki'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['1000e3', '1e6'],
    ['1500e0', '1500'],
    ['-16Gi', '-16Gi'],
    ['-1500m', '-1500m'],
    ['1024Ei', '1024Ei'],
  ];
  for (const [input, want] of canonical) {
    it(`prints "${input}" as "${want}"`, () => {
      expect(canonicalQuantity(input)).to.equal(want);
    });
  }

  it('prints what it parses back to the same value', () => {
    const fmt = fc.constantFrom('DecimalSI' as const, 'BinarySI' as const, 'DecimalExponent' as const);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fmt, (nanos, format) => {
        const s = formatQuantity({ nanos, format });
        expect(parseQuantity(s).nanos).to.equal(nanos);
      }),
    );
  });
});

describe('quantity helpers', () => {
  it('quantityFromNumber builds from base units', () => {
    expect(formatQuantity(quantityFromNumber(4))).to.equal('4');
    expect(formatQuantity(quantityFromNumber(0.25))).to.equal('250m');
    expect(formatQuantity(quantityFromNumber(16 * 1024 ** 3, 'BinarySI'))).to.equal('16Gi');
    expect(() => quantityFromNumber(Number.NaN)).to.throw(QuantityError);
  });

  it('quantityValue and quantityMilliValue round up', () => {
    expect(quantityValue(parseQuantity('1500m'))).to.equal(2);
    expect(quantityValue(parseQuantity('16Gi'))).to.equal(17179869184);
    expect(quantityMilliValue(parseQuantity('0.0005'))).to.equal(1);
    expect(quantityMilliValue(parseQuantity('2'))).to.equal(2000);
  });

  it('compareQuantities compares values, not spellings', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1024Mi'))).to.equal(0);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('2'), parseQuantity('1999m'))).to.equal(1);
  });

  it('converts MiB to and from quantity strings', () => {
    expect(mebibytesToQuantityString(16384)).to.equal('16384Mi');
    expect(mebibytesToQuantityString(0)).to.equal('0Mi');
    expect(() => mebibytesToQuantityString(1.5)).to.throw(QuantityError);
    expect(() => mebibytesToQuantityString(-1)).to.throw(QuantityError);
    expect(quantityStringToMebibytes('16Gi')).to.equal(16384);
    expect(quantityStringToMebibytes('16384Mi')).to.equal(16384);
    expect(quantityStringToMebibytes('1M')).to.equal(1);
    expect(quantityStringToMebibytes('17179869184')).to.equal(16384);
  });
});
