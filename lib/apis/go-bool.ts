// Go's strconv.ParseBool: the spellings Go flags and kube-apiserver's boolean query parameters take.
// Clients spell booleans differently (kubectl `watch=true`, the Python client `watch=True`, others `1`),
// and every one of them must mean what it means to the Go programs they were written against.
export class GoBoolSyntaxError extends Error {
  override readonly name = 'GoBoolSyntaxError';
  constructor(
    readonly what: string,
    readonly value: string,
  ) {
    super(
      `${what} must be a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False), got ${JSON.stringify(value)}`,
    );
  }
}

const goTrue: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const goFalse: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** true/false for Go's spellings; GoBoolSyntaxError naming `what` for anything else. */
export function parseGoBool(value: string, what = 'value'): boolean {
  if (goTrue.has(value)) return true;
  if (goFalse.has(value)) return false;
  throw new GoBoolSyntaxError(what, value);
}
