// Go's time.ParseDuration syntax for duration flags ("120s", "1m30s", "500ms"), so the flags read as
// they do in the Go binaries.
const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export class DurationError extends Error {
  override readonly name = 'DurationError';
}

/** Milliseconds; "0" is zero. Throws DurationError naming the flag. */
export function parseGoDuration(text: string, flag = 'duration'): number {
  const s = text.trim();
  if (s === '0' || s === '+0' || s === '-0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let i = 0;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    i = 1;
  }
  if (i >= s.length)
    throw new DurationError(`${flag}: ${JSON.stringify(text)} is not a duration (e.g. "120s", "1m30s")`);
  let total = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) throw new DurationError(`${flag}: ${JSON.stringify(text)} is not a duration (e.g. "120s", "1m30s")`);
    total += Number(m[1]) * units[m[2]!]!;
    i = re.lastIndex;
  }
  return sign * total;
}
