// Field rules every provider applies to names and numbers in its providerSpec, written once: a name is checked
// against its length limit before its pattern, so a pattern only ever runs on a short string and every check
// costs time linear in the input; a number is checked against the range the cloud accepts.
import { invalidValue, tooLong, type FieldIssue } from './spec-reader.js';

/** A cloud's naming rule for one kind of name: its pattern (a literal), its length limits and how to say it. */
export interface NameRule {
  /** Anchored literal pattern; only ever run on a string within [minLength, maxLength]. */
  pattern: RegExp;
  maxLength: number;
  minLength?: number;
  /** What the rule is, in words, e.g. 'lower-case letters, digits and "-", starting with a letter'. */
  description: string;
}

/** The issue for a name that breaks its rule (too long, too short or off-pattern); undefined when it complies. */
export function checkName(field: string, value: string, rule: NameRule): FieldIssue | undefined {
  if (value.length > rule.maxLength) return tooLong(field, value, rule.maxLength);
  const min = rule.minLength ?? 1;
  if (value.length < min || !rule.pattern.test(value)) {
    const size = min === rule.maxLength ? `${min}` : `${min} to ${rule.maxLength}`;
    return invalidValue(field, value, `must be ${size} characters: ${rule.description}`);
  }
  return undefined;
}

/** The issue for an integer outside [min, max]; undefined when it is within. */
export function checkRange(field: string, value: number, min: number, max: number, unit = ''): FieldIssue | undefined {
  if (value >= min && value <= max) return undefined;
  const u = unit ? ` ${unit}` : '';
  return invalidValue(field, value, `must be between ${min} and ${max}${u}`);
}

const DECIMAL = /^[0-9]{1,15}(\.[0-9]{1,15})?$/;

/** A non-negative decimal written as a string ("0.05", "12"): digits, at most one point, no sign or exponent. */
export const isNonNegativeDecimal = (value: string): boolean => DECIMAL.test(value);
