// Go time.Duration strings, as the MHC fields (timeout, nodeStartupTimeout) and flags carry them:
// parse ("300s", "1m30s", "1.5h", "-2ms", "0") and format (Duration.String(): "5m0s", "1.5ms", "0s").
// Exact arithmetic is done in integer nanoseconds (bigint), like Go's int64.

export class DurationError extends Error {
  override name = 'DurationError';
}

const NS_PER: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_INT64 = (1n << 63n) - 1n;

// Go quotes the input with strconv.Quote in its messages; JSON quoting agrees for everything printable.
const quote = (s: string) => JSON.stringify(s);

/** Parses a Go duration string into integer nanoseconds; throws DurationError with Go's message text. */
export function parseGoDurationNs(s: string): bigint {
  const orig = s;
  const invalid = () => new DurationError(`time: invalid duration ${quote(orig)}`);
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    // The number: integer part, optional fraction; at least one digit overall.
    const num = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    const intPart = num[1] ?? '';
    const fracPart = num[2] ?? '';
    if (intPart === '' && fracPart === '') throw invalid();
    s = s.slice(num[0].length);
    const unitMatch = /^[^0-9.]*/.exec(s)!;
    const unit = unitMatch[0];
    if (unit === '') throw new DurationError(`time: missing unit in duration ${quote(orig)}`);
    const scale = NS_PER[unit];
    if (scale === undefined) throw new DurationError(`time: unknown unit ${quote(unit)} in duration ${quote(orig)}`);
    s = s.slice(unit.length);
    let v = BigInt(intPart === '' ? '0' : intPart) * scale;
    if (fracPart !== '') {
      // Go truncates the fractional part toward zero at nanosecond precision.
      v += (BigInt(fracPart) * scale) / 10n ** BigInt(fracPart.length);
    }
    total += v;
    if (total > MAX_INT64 + (neg ? 1n : 0n)) throw invalid();
  }
  return neg ? -total : total;
}

/** Parses a Go duration string into milliseconds (fractional below 1 ms, e.g. "1500us" → 1.5). */
export function parseGoDuration(s: string): number {
  return Number(parseGoDurationNs(s)) / 1e6;
}

function fraction(v: bigint, digits: number): string {
  // v has `digits` implied decimal places; drop trailing zeros and the dot when nothing is left.
  const p = 10n ** BigInt(digits);
  const whole = v / p;
  let frac = (v % p).toString().padStart(digits, '0').replace(/0+$/, '');
  if (frac !== '') frac = `.${frac}`;
  return `${whole}${frac}`;
}

/** Go's Duration.String() for integer nanoseconds: "0s", "1.5µs", "20ms", "1m30s", "2h0m0s", "-5s". */
export function formatGoDurationNs(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  const u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) out = `${u}ns`;
    else if (u < 1_000_000n) out = `${fraction(u, 3)}µs`;
    else out = `${fraction(u, 6)}ms`;
  } else {
    const h = u / 3_600_000_000_000n;
    const rem = u % 3_600_000_000_000n;
    const m = rem / 60_000_000_000n;
    const sec = fraction(rem % 60_000_000_000n, 9) + 's';
    if (h > 0n) out = `${h}h${m}m${sec}`;
    else if (m > 0n) out = `${m}m${sec}`;
    else out = sec;
  }
  return neg ? `-${out}` : out;
}

/** Go's Duration.String() for milliseconds (rounded to whole nanoseconds). */
export function formatGoDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new DurationError(`cannot format ${ms} ms as a duration`);
  return formatGoDurationNs(BigInt(Math.round(ms * 1e6)));
}
