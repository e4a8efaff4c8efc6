// `format` checks. String formats are the ones kube-apiserver validates for CRDs (the rest are documentation
// and ignored, as kube does); integer formats int32/int64 bound the value so a replicas of 3e9 is refused here
// rather than overflowing a Go client later.
import type { FieldCause } from './types.js';
import { formatInvalid, invalid } from './causes.js';

const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** A UUID of the given version: the version digit opens the third group, the variant (8, 9, a, b) the fourth. */
const uuidVersionRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?([0-9a-f])[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const isUuidVersion = (s: string, v: string): boolean => uuidVersionRe.exec(s)?.[1] === v;
// The layouts go-openapi's strfmt accepts: RFC 3339 with or without fraction, an offset with or without a colon,
// and the ISO 8601 local-time and minute-precision forms.
const dateTimeRe = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?$/;
const dateRe = /^(\d{4})-(\d{2})-(\d{2})$/;

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
const macRe = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
const hostnameRe = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*\.?$/i;
const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const emailRe = /^[^\s@]+@[^\s@]+$/;
const durationRe =
  /^(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|second|seconds|minute|minutes|hour|hours|day|days|week|weeks)\s*)+$/;
const bsonObjectIdRe = /^[0-9a-f]{24}$/i;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return (
    parts.length === 4 &&
    parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p.length === 1 || p[0] !== '0'))
  );
}

function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  let rest = s;
  let groupsAllowed = 8;
  const lastColon = rest.lastIndexOf(':');
  const tail = rest.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    rest = rest.slice(0, lastColon + 1) + '0';
    groupsAllowed = 7;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const all = halves.flatMap(groups);
  if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return false;
  return halves.length === 2 ? all.length < groupsAllowed : all.length === groupsAllowed;
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

function isDateTime(s: string): boolean {
  const m = dateTimeRe.exec(s);
  if (m === null) return false;
  const [, y, mo, d, h, mi, sec] = m.map(Number);
  return (
    validDate(y ?? 0, mo ?? 0, d ?? 0) && (h ?? 0) < 24 && (mi ?? 0) < 60 && (Number.isNaN(sec) || (sec ?? 0) < 61)
  );
}

function isDate(s: string): boolean {
  const m = dateRe.exec(s);
  return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

function isURI(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return s.startsWith('/');
  }
}

const stringFormats: Record<string, (s: string) => boolean> = {
  'date-time': isDateTime,
  datetime: isDateTime,
  date: isDate,
  uuid: (s) => uuidRe.test(s),
  uuid3: (s) => isUuidVersion(s, '3'),
  uuid4: (s) => isUuidVersion(s, '4'),
  uuid5: (s) => isUuidVersion(s, '5'),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCIDR,
  mac: (s) => macRe.test(s),
  hostname: (s) => hostnameRe.test(s),
  byte: (s) => base64Re.test(s),
  email: (s) => emailRe.test(s),
  uri: isURI,
  duration: (s) => durationRe.test(s),
  bsonobjectid: (s) => bsonObjectIdRe.test(s),
};

export function checkStringFormat(path: string, value: string, format: string | undefined): FieldCause | undefined {
  if (format === undefined) return undefined;
  const check = stringFormats[format];
  if (check === undefined || check(value)) return undefined;
  return formatInvalid(path, value, format);
}

const intBounds: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  // 2^63 is exactly representable; any double at or beyond it overflows an int64.
  int64: [-(2 ** 63), 2 ** 63],
};

export function checkIntegerFormat(path: string, value: number, format: string | undefined): FieldCause | undefined {
  const bounds = format === undefined ? undefined : intBounds[format];
  if (bounds === undefined) return undefined;
  if (format === 'int64' ? value >= bounds[1] : value > bounds[1])
    return invalid(
      path,
      value,
      `should be less than or equal to ${format === 'int32' ? '2147483647' : '9223372036854775807'}`,
    );
  if (value < bounds[0])
    return invalid(
      path,
      value,
      `should be greater than or equal to ${format === 'int32' ? '-2147483648' : '-9223372036854775808'}`,
    );
  return undefined;
}
