// The deletion settings a Machine carries as annotations (so that the machine-api-operator's CRDs, which prune
// unknown spec fields, keep them): how long a drain may run and how long to wait for the Node's volumes to
// detach. One reader for the controllers and for the admission webhook, so both accept the same values.
import { DrainableCondition, DrainTimeoutAnnotation, VolumeDetachTimeoutAnnotation } from '../../apis/constants.js';
import type { Machine } from '../../apis/machine-types.js';
import { DurationError, parseGoDuration } from '../../apis/duration.js';
import { invalidValue, keyPath, type FieldIssue } from '../../cloud/spec-reader.js';

/** Without the annotation the deletion waits this long for volumes to detach (as Cluster API's default). */
export const DefaultVolumeDetachTimeoutMs = 10 * 60_000;

export interface DeletionSettings {
  /** How long the drain may run before termination goes ahead; undefined (or 0 written) = no limit. */
  drainTimeoutMs?: number;
  /** How long to wait after the drain for VolumeAttachments naming the Node to go; 0 = do not wait. */
  volumeDetachTimeoutMs: number;
  /** What could not be read, one message per annotation; such a value is ignored (the default applies). */
  problems: string[];
}

const Annotations = [DrainTimeoutAnnotation, VolumeDetachTimeoutAnnotation] as const;

/** A Go duration that is not negative, in ms; throws DurationError naming the rule. */
function nonNegativeDuration(value: string): number {
  const ms = parseGoDuration(value.trim());
  if (ms < 0) throw new DurationError('must not be negative');
  return ms;
}

/**
 * The problems with the deletion annotations in `annotations`, each naming its field under `fieldPath`
 * (`metadata.annotations` of a Machine, `spec.template.metadata.annotations` of a MachineSet). A value the
 * object already had (`previous`, on an update) is not judged again: an object stored before the rule existed
 * must stay writable by its controllers.
 */
export function deletionSettingIssues(
  annotations: Readonly<Record<string, string>> | undefined,
  fieldPath: string,
  previous?: Readonly<Record<string, string>>,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const key of Annotations) {
    const value = annotations?.[key];
    if (value === undefined || previous?.[key] === value) continue;
    try {
      nonNegativeDuration(value);
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
      issues.push(
        invalidValue(
          keyPath(fieldPath, key),
          value,
          `${err.message}: must be a duration such as "90s", "10m" or "1h30m" (0 for ${key === DrainTimeoutAnnotation ? 'no limit' : 'no wait'})`,
        ),
      );
    }
  }
  return issues;
}

/** The deletion settings of a Machine; a value that cannot be read is reported in `problems` and ignored. */
export function deletionSettings(annotations: Readonly<Record<string, string>> | undefined): DeletionSettings {
  const out: DeletionSettings = { volumeDetachTimeoutMs: DefaultVolumeDetachTimeoutMs, problems: [] };
  for (const issue of deletionSettingIssues(annotations, 'metadata.annotations')) out.problems.push(issue.message);
  const read = (key: string): number | undefined => {
    const v = annotations?.[key];
    if (v === undefined) return undefined;
    try {
      return nonNegativeDuration(v);
    } catch {
      return undefined;
    }
  };
  const drain = read(DrainTimeoutAnnotation);
  if (drain !== undefined && drain > 0) out.drainTimeoutMs = drain;
  const volumes = read(VolumeDetachTimeoutAnnotation);
  if (volumes !== undefined) out.volumeDetachTimeoutMs = volumes;
  return out;
}

/**
 * When the drain of a deleted Machine began, from what the cluster shows (so a restart neither resets nor
 * extends a drain timeout): the deletion, or, when pre-drain hooks held the drain back, the moment the last one
 * went (the machine controller turns Drainable True then). Those times are whole seconds, rounded down: the
 * drain counts from the end of that second, so that it never ends before its timeout.
 */
export function drainStartedAt(machine: Machine): number | undefined {
  const deleted = Date.parse(machine.metadata.deletionTimestamp ?? '');
  if (Number.isNaN(deleted)) return undefined;
  const drainable = machine.status?.conditions?.find((c) => c.type === DrainableCondition);
  const hooksGone = drainable?.status === 'True' ? Date.parse(drainable.lastTransitionTime ?? '') : NaN;
  return (Number.isNaN(hooksGone) ? deleted : Math.max(deleted, hooksGone)) + WholeSecondMs;
}

const WholeSecondMs = 1_000;
