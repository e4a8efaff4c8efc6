// The two ends of every provider's providerSpec decode that do not depend on the cloud.
//
// How a provider uses it: build the decoded spec with SpecReader, return compactSpec(spec) so it reads (and
// serialises) like the JSON that was written, then throwOnFieldIssues([...reader.errors, ...validation.errors])
// to fail the Machine with one InvalidMachineConfigurationError naming the first bad field.
import { InvalidMachineConfigurationError } from '../apis/errors.js';
import type { FieldIssue } from './spec-reader.js';

/**
 * Sets an own, enumerable property even when the key is "__proto__": plain assignment would replace the
 * object's prototype instead (or drop the value silently), so a user's "__proto__" label would vanish unchecked.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Drops undefined members, deeply (arrays kept in order), so a decoded spec has only what was written or defaulted. */
export function compactSpec<T>(value: T): T {
  if (Array.isArray(value)) return value.map(compactSpec) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) setOwn(out, k, compactSpec(v));
  return out as T;
}

/** How many issues the error message spells out; the rest are counted, so the message stays short however bad the spec. */
export const MAX_LISTED_ISSUES = 20;

/** Throws one InvalidMachineConfigurationError naming the first bad field and listing the issues; no-op for none. */
export function throwOnFieldIssues(issues: readonly FieldIssue[]): void {
  const first = issues[0];
  if (!first) return;
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((i) => i.message);
  if (issues.length > MAX_LISTED_ISSUES) listed.push(`and ${issues.length - MAX_LISTED_ISSUES} more`);
  throw new InvalidMachineConfigurationError(listed.join('; '), { field: first.field });
}

/** The reference webhook's warning when a spec names an apiVersion or kind it does not accept; undefined when both are absent or right. */
export function groupVersionKindWarning(
  spec: { apiVersion?: string; kind?: string },
  knownApiVersions: readonly string[],
  kind: string,
): string | undefined {
  if (spec.apiVersion === undefined && spec.kind === undefined) return undefined;
  if (knownApiVersions.includes(spec.apiVersion ?? '') && spec.kind === kind) return undefined;
  return `incorrect GroupVersionKind for ${kind} object: ${spec.apiVersion ?? ''}, Kind=${spec.kind ?? ''}`;
}

/** A decoded providerSpec and its validation, together: throws for every issue of both, else the spec with all warnings. */
export function acceptValidated<S>(
  decoded: { spec: S; warnings: string[]; unknownFields: string[]; errors: readonly FieldIssue[] },
  validation: { errors: readonly FieldIssue[]; warnings: readonly string[] },
): { spec: S; warnings: string[]; unknownFields: string[] } {
  throwOnFieldIssues([...decoded.errors, ...validation.errors]);
  return {
    spec: decoded.spec,
    warnings: [...decoded.warnings, ...validation.warnings],
    unknownFields: decoded.unknownFields,
  };
}
