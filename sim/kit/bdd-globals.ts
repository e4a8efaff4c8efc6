// The BDD globals the shared suites (conformance, capacity, missing Secret, oversize user data) register with:
// mocha's, read at call time so that building lib needs no test-runner types.

export interface BddGlobals {
  describe(title: string, fn: () => void): void;
  it(title: string, fn: () => Promise<void>): void;
  before(fn: () => Promise<void>): void;
  after(fn: () => Promise<void>): void;
  afterEach(fn: () => Promise<void>): void;
}

/** Mocha's BDD globals; `suite` (the function asking) is named when it is called from outside a mocha test file. */
export function bddGlobals(suite: string): BddGlobals {
  const g = globalThis as unknown as Partial<BddGlobals>;
  if (typeof g.describe !== 'function') throw new Error(`${suite} must be called from a mocha test file`);
  return g as BddGlobals;
}
