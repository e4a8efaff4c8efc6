// Kubernetes resource.Quantity, reduced to what scale-from-zero and node capacity need: parse any quantity
// string ("4", "500m", "16Gi", "1.5k", "1e3"), compare, read it as a number, and print the canonical form
// Kubernetes prints ("16384Mi" → "16Gi", "1500m" → "1500m", "0.5" → "500m").
// Values are kept exactly as integer nano-units (bigint); finer precision rounds up, as Kubernetes does.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value × 10⁹ (nano-units), exact. */
  readonly nanos: bigint;
  /** How the quantity was written; decides how it is printed. */
  readonly format: QuantityFormat;
}

export class QuantityError extends Error {
  override name = 'QuantityError';
}

const NANO = 1_000_000_000n;

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX_BY_EXP = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_SUFFIX_BY_EXP = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e / 10, s]));

// Sign, number, then everything else is the suffix (which may not contain spaces: it must be a known one).
const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(.*)$/s;

/** Divides rounding toward +∞. */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/** Parses a Kubernetes quantity string; throws QuantityError naming the input. */
export function parseQuantity(s: string): Quantity {
  const m = QUANTITY.exec(s);
  if (!m) {
    throw new QuantityError(
      `invalid quantity ${JSON.stringify(s)}: must be a number with an optional suffix (e.g. "4", "500m", "16Gi", "1e3")`,
    );
  }
  const sign = m[1] === '-' ? -1n : 1n;
  const [intPart = '', fracPart = ''] = m[2]!.split('.');
  const suffix = m[3]!;
  // The number as digits × 10^-fracLen.
  const digits = BigInt((intPart || '0') + fracPart);
  const fracLen = fracPart.length;

  let format: QuantityFormat;
  let exp10 = 0;
  let exp2 = 0;
  if (suffix in BINARY_SUFFIXES) {
    format = 'BinarySI';
    exp2 = BINARY_SUFFIXES[suffix]!;
  } else if (suffix in DECIMAL_SUFFIXES) {
    format = 'DecimalSI';
    exp10 = DECIMAL_SUFFIXES[suffix]!;
  } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
    format = 'DecimalExponent';
    exp10 = Number.parseInt(suffix.slice(1), 10);
    if (Math.abs(exp10) > 1000) throw new QuantityError(`invalid quantity ${JSON.stringify(s)}: exponent out of range`);
  } else {
    throw new QuantityError(`invalid quantity ${JSON.stringify(s)}: unknown suffix ${JSON.stringify(suffix)}`);
  }

  // nanos = digits × 2^exp2 × 10^(exp10 + 9 - fracLen), rounded up.
  let num = digits * (1n << BigInt(exp2));
  const scale = exp10 + 9 - fracLen;
  num = scale >= 0 ? num * 10n ** BigInt(scale) : ceilDiv(num, 10n ** BigInt(-scale));
  // Extra precision rounds the magnitude up (away from zero), like inf.Dec's RoundUp that Kubernetes uses.
  return { nanos: sign * num, format };
}

/** A quantity of `value` base units (bytes, cores, …). Fractions below one nano-unit round up. */
export function quantityFromNumber(value: number, format: QuantityFormat = 'DecimalSI'): Quantity {
  if (!Number.isFinite(value)) throw new QuantityError(`cannot make a quantity of ${value}`);
  if (Number.isInteger(value)) return { nanos: BigInt(value) * NANO, format };
  return { nanos: BigInt(Math.ceil(value * 1e9)), format };
}

function decimalString(nanos: bigint, format: QuantityFormat): string {
  const neg = nanos < 0n;
  let mantissa = neg ? -nanos : nanos;
  let exp = -9;
  while (mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exp += 3;
  }
  let suffix: string;
  if (format === 'DecimalExponent') suffix = exp === 0 ? '' : `e${exp}`;
  else suffix = DECIMAL_SUFFIX_BY_EXP.get(exp) ?? `e${exp}`;
  return `${neg ? '-' : ''}${mantissa}${suffix}`;
}

/** The canonical string Kubernetes prints for a quantity (Quantity.String()). */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  if (q.format === 'BinarySI') {
    const whole = q.nanos % NANO === 0n;
    const magnitude = q.nanos < 0n ? -q.nanos : q.nanos;
    // Small or fractional binary quantities print in decimal, so nothing is rounded.
    if (whole && magnitude >= 1024n * NANO) {
      let mantissa = magnitude / NANO;
      let exp = 0;
      while (mantissa % 1024n === 0n && exp < 6) {
        mantissa /= 1024n;
        exp++;
      }
      return `${q.nanos < 0n ? '-' : ''}${mantissa}${BINARY_SUFFIX_BY_EXP.get(exp) ?? ''}`;
    }
    return decimalString(q.nanos, 'DecimalSI');
  }
  return decimalString(q.nanos, q.format);
}

/** Re-prints a quantity string in canonical form ("16384Mi" → "16Gi"). */
export function canonicalQuantity(s: string): string {
  return formatQuantity(parseQuantity(s));
}

/** The value in base units, rounded up to an integer (Quantity.Value()). */
export function quantityValue(q: Quantity): number {
  return Number(ceilDiv(q.nanos, NANO));
}

/** The value in thousandths of a base unit, rounded up (Quantity.MilliValue()). */
export function quantityMilliValue(q: Quantity): number {
  return Number(ceilDiv(q.nanos, 1_000_000n));
}

/** The value in base units as a float (may be fractional, e.g. 0.5 cores). */
export function quantityAsNumber(q: Quantity): number {
  return Number(q.nanos) / 1e9;
}

/** -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** A memory size in whole MiB as a binary quantity string in MiB, e.g. 16384 → "16384Mi". */
export function mebibytesToQuantityString(mib: number): string {
  if (!Number.isSafeInteger(mib) || mib < 0)
    throw new QuantityError(`memory ${mib} MiB must be a non-negative integer`);
  return `${mib}Mi`;
}

/** A memory quantity string ("16Gi", "17179869184", "16G") in MiB, rounded up to whole MiB. */
export function quantityStringToMebibytes(s: string): number {
  return Number(ceilDiv(parseQuantity(s).nanos, NANO << 20n));
}
