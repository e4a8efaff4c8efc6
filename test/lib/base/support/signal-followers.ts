// What a long-lived AbortSignal holds on behalf of shorter-lived work: its 'abort' listeners, and the
// AbortSignal.any() composites Node.js has registered on it (its internal kDependantSignals set, which Node.js
// only lets go of when the long-lived signal itself is collected). Work that is over must leave neither.
import { getEventListeners } from 'node:events';

export function signalFollowers(signal: AbortSignal): { listeners: number; anyDependants: number } {
  const key = Object.getOwnPropertySymbols(signal).find((k) => k.description === 'kDependantSignals');
  const dependants = key ? (signal as unknown as Record<symbol, Set<unknown> | undefined>)[key] : undefined;
  return { listeners: getEventListeners(signal, 'abort').length, anyDependants: dependants?.size ?? 0 };
}
