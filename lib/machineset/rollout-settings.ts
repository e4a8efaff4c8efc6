// How a MachineSet replaces Machines made from an older template, read from its annotations (the operator's CRD
// prunes unknown spec fields, so they cannot live in the spec). One reader serves the validating webhook, which
// refuses bad values naming the annotation, and the controller, which will not act on them either.
//
// The numbers follow a Kubernetes Deployment's rollingUpdate: an integer or a percentage of spec.replicas, the
// surge rounded up and the unavailable rounded down, both 0 refused.
import {
  RolloutMaxSurgeAnnotation,
  RolloutMaxUnavailableAnnotation,
  RolloutPausedAnnotation,
  RolloutRestartAnnotation,
  RolloutStrategyAnnotation,
} from '../apis/constants.js';
import { parseIntOrPercent, scaledValueFromIntOrPercent } from '../apis/int-or-percent.js';
import type { MachineSet } from '../apis/machine-types.js';
import type { MachineSetFieldError } from './validation.js';

export type RolloutStrategy = 'OnDelete' | 'RollingUpdate';
export const RolloutStrategies: readonly RolloutStrategy[] = ['OnDelete', 'RollingUpdate'];

export const DEFAULT_MAX_SURGE = '1';
export const DEFAULT_MAX_UNAVAILABLE = '0';
/** The restart value is stamped on every Machine; a bound keeps a pasted blob from being copied hundreds of times. */
export const MAX_RESTART_VALUE_LENGTH = 256;

export interface RolloutSettings {
  strategy: RolloutStrategy;
  /** As written: "1", "25%". */
  maxSurge: string;
  maxUnavailable: string;
  paused: boolean;
  /** The value of the restart annotation; undefined when the MachineSet has none. */
  restart?: string;
}

/** The field path kube-apiserver prints for an annotation. */
export const annotationField = (key: string): string => `metadata.annotations[${key}]`;

type Parsed = { value: number; isPercent: boolean };

function readIntOrPercent(
  annotations: Record<string, string>,
  key: string,
  fallback: string,
  errors: MachineSetFieldError[],
  maxPercent?: number,
): { raw: string; parsed?: Parsed } {
  const raw = annotations[key] ?? fallback;
  let parsed: Parsed;
  try {
    parsed = parseIntOrPercent(raw);
  } catch {
    errors.push({
      field: annotationField(key),
      value: raw,
      detail: 'must be a non-negative integer or a percentage such as "25%"',
    });
    return { raw };
  }
  if (parsed.value < 0) {
    errors.push({ field: annotationField(key), value: raw, detail: 'must be greater than or equal to 0' });
    return { raw };
  }
  if (maxPercent !== undefined && parsed.isPercent && parsed.value > maxPercent) {
    errors.push({ field: annotationField(key), value: raw, detail: `must not be greater than ${maxPercent}%` });
    return { raw };
  }
  return { raw, parsed };
}

/** The settings, or the errors that make them unusable (each naming its annotation and the rule). */
export function readRolloutSettings(
  ms: MachineSet,
): { settings: RolloutSettings; errors: [] } | { settings?: undefined; errors: MachineSetFieldError[] } {
  const annotations = ms.metadata.annotations ?? {};
  const errors: MachineSetFieldError[] = [];

  const strategy = annotations[RolloutStrategyAnnotation] ?? 'OnDelete';
  if (!RolloutStrategies.includes(strategy as RolloutStrategy)) {
    errors.push({
      field: annotationField(RolloutStrategyAnnotation),
      value: strategy,
      detail: `must be one of ${RolloutStrategies.map((s) => `"${s}"`).join(', ')}`,
    });
  }
  const surge = readIntOrPercent(annotations, RolloutMaxSurgeAnnotation, DEFAULT_MAX_SURGE, errors);
  const unavailable = readIntOrPercent(
    annotations,
    RolloutMaxUnavailableAnnotation,
    DEFAULT_MAX_UNAVAILABLE,
    errors,
    100,
  );
  if (surge.parsed?.value === 0 && unavailable.parsed?.value === 0) {
    errors.push({
      field: annotationField(RolloutMaxUnavailableAnnotation),
      value: unavailable.raw,
      detail: `may not be 0 when ${RolloutMaxSurgeAnnotation} is 0 (the default of ${RolloutMaxUnavailableAnnotation} is 0): no Machine could ever be replaced`,
    });
  }
  const pausedRaw = annotations[RolloutPausedAnnotation];
  if (pausedRaw !== undefined && pausedRaw !== 'true' && pausedRaw !== 'false') {
    errors.push({
      field: annotationField(RolloutPausedAnnotation),
      value: pausedRaw,
      detail: 'must be "true" or "false"',
    });
  }
  const restart = annotations[RolloutRestartAnnotation];
  if (restart !== undefined && restart.length > MAX_RESTART_VALUE_LENGTH) {
    errors.push({
      field: annotationField(RolloutRestartAnnotation),
      value: `${restart.slice(0, 40)}...`,
      detail: `must be no more than ${MAX_RESTART_VALUE_LENGTH} characters`,
    });
  }
  if (errors.length > 0) return { errors };
  const settings: RolloutSettings = {
    strategy: strategy as RolloutStrategy,
    maxSurge: surge.raw,
    maxUnavailable: unavailable.raw,
    paused: pausedRaw === 'true',
  };
  if (restart !== undefined) settings.restart = restart;
  return { settings, errors: [] };
}

export interface RolloutBounds {
  /** Machines allowed above spec.replicas. */
  maxSurge: number;
  /** Available Machines allowed below spec.replicas. */
  maxUnavailable: number;
}

/**
 * The settings as numbers for `replicas`, rounded as a Deployment rounds them: a percentage surge up, a
 * percentage unavailable down. When both come to 0 (a small percentage of few replicas), 1 may be unavailable,
 * as in a Deployment, so the rollout still moves; never more than `replicas` may be.
 */
export function resolveRolloutBounds(
  settings: Pick<RolloutSettings, 'maxSurge' | 'maxUnavailable'>,
  replicas: number,
): RolloutBounds {
  const maxSurge = scaledValueFromIntOrPercent(settings.maxSurge, replicas, true);
  let maxUnavailable = scaledValueFromIntOrPercent(settings.maxUnavailable, replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, replicas) };
}
