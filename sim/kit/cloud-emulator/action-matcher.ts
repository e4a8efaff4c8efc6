// Which calls a knob applies to: an action name, an action class the emulator defines (e.g. "describe"),
// "*" for everything, a list of those, a RegExp over the action name, or a predicate.

export type ActionMatcher = string | readonly string[] | RegExp | ((action: string, actionClass: string) => boolean);

export function matchesAction(m: ActionMatcher, action: string, actionClass: string): boolean {
  if (typeof m === 'string') return m === '*' || m === action || m === actionClass;
  if (typeof m === 'function') return m(action, actionClass);
  if (m instanceof RegExp) return m.test(action);
  return m.some((s) => s === '*' || s === action || s === actionClass);
}

export function describeMatcher(m: ActionMatcher): string {
  if (typeof m === 'string') return m;
  if (typeof m === 'function') return 'predicate';
  if (m instanceof RegExp) return m.toString();
  return m.join(',');
}
