// IntOrString fields read as "an absolute number or a percentage of a total", as the MachineHealthCheck's
// maxUnhealthy is. Unlike intstr.GetScaledValueFromIntOrPercent, a string without
// '%' is a plain integer (the kubernetes#89082 behaviour the reference adopted).

export type IntOrString = number | string;

export class IntOrPercentError extends Error {
  override name = 'IntOrPercentError';
}

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

/** strconv.Atoi: optional sign then decimal digits, within int64; the error text is Go's. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const big = BigInt(s);
  if (big < MIN_INT64 || big > MAX_INT64)
    throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(big);
}

/** The number in an int-or-percent value and whether it was a percentage ("40%" → 40, true). */
export function parseIntOrPercent(v: IntOrString): { value: number; isPercent: boolean } {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new IntOrPercentError(`invalid value for IntOrString: ${v} is not an integer`);
    return { value: v, isPercent: false };
  }
  if (typeof v !== 'string') {
    throw new IntOrPercentError('invalid value for IntOrString: invalid type: neither int nor percentage');
  }
  const isPercent = v.endsWith('%');
  const digits = isPercent ? v.slice(0, -1) : v;
  try {
    return { value: atoi(digits), isPercent };
  } catch (err) {
    throw new IntOrPercentError(
      `invalid value for IntOrString: invalid value ${JSON.stringify(v)}: ${(err as Error).message}`,
    );
  }
}

/**
 * An int, or "N" (= N), or "N%" of `total`, rounded down (or up with roundUp). Throws IntOrPercentError with
 * the reference's message for anything else.
 */
export function scaledValueFromIntOrPercent(v: IntOrString, total: number, roundUp = false): number {
  const { value, isPercent } = parseIntOrPercent(v);
  if (!isPercent) return value;
  const scaled = (value * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/**
 * How many unhealthy machines a MachineHealthCheck tolerates: unset → all of them (expectedMachines);
 * otherwise scaledValueFromIntOrPercent, with a negative result clamped to 0.
 */
export function resolveMaxUnhealthy(maxUnhealthy: IntOrString | undefined | null, expectedMachines: number): number {
  if (maxUnhealthy === undefined || maxUnhealthy === null) return expectedMachines;
  return Math.max(0, scaledValueFromIntOrPercent(maxUnhealthy, expectedMachines));
}
