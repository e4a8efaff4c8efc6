// Runs a hook once calls of chosen methods of a client have settled, without a hand-written delegate for
// every other method: the providers' listing snapshots use it to forget an instance whenever it is created or
// deleted through the client, so no caller can forget to.

/** Per method of T, a hook that receives the arguments of each call of it once the call settled. */
export type AfterCallHooks<T> = {
  [K in keyof T]?: T[K] extends (...args: infer A) => unknown ? (...args: A) => void : never;
};

type AnyFn = (...args: unknown[]) => unknown;

/**
 * `api` with each hooked method calling its hook after it resolved, rejected or threw. Every method is called
 * on `api` itself (private state, including #fields, keeps working); non-function members pass through.
 */
export function afterCalls<T extends object>(api: T, hooks: AfterCallHooks<T>): T {
  const table = hooks as Partial<Record<PropertyKey, AnyFn>>;
  // Built once per method, not on every call: clients sit on the reconcile hot path.
  const wrapped = new Map<PropertyKey, { member: AnyFn; fn: AnyFn }>();
  return new Proxy(api, {
    get(target, prop) {
      const member: unknown = Reflect.get(target, prop, target);
      if (typeof member !== 'function') return member;
      const known = wrapped.get(prop);
      if (known?.member === member) return known.fn;
      const fn = withHook(target, member as AnyFn, table[prop]);
      wrapped.set(prop, { member: member as AnyFn, fn });
      return fn;
    },
  });
}

function withHook(target: object, member: AnyFn, hook: AnyFn | undefined): AnyFn {
  const method = member.bind(target);
  if (!hook) return method;
  return (...args: unknown[]): unknown => {
    let result: unknown;
    try {
      result = method(...args);
    } catch (err) {
      hook(...args);
      throw err;
    }
    if (result instanceof Promise) return result.finally(() => hook(...args));
    hook(...args);
    return result;
  };
}
