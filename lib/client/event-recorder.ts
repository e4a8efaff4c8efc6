// Events: what a controller tells a human about an object. The implementation aggregates repeats
// (count, lastTimestamp), so a hot error never floods the API.
import type { KubeObject } from '../apis/meta.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Never throws and never blocks the caller on the API; failures are logged. */
  event(object: KubeObject, type: EventType, reason: string, action: string, message: string): void;
}
