// Go's strconv.ParseBool, which every Go flag and kube-apiserver query parameter uses: the operator may pass
// `--leader-elect=1` or `--logtostderr=True` and means what the Go binaries take it to mean.
import { InvalidArgumentError } from 'commander';

export class BoolSyntaxError extends Error {
  override readonly name = 'BoolSyntaxError';
}

const goTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const goFalse = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** true/false for Go's spellings; BoolSyntaxError naming the flag otherwise. */
export function parseGoBool(text: string, flag = 'bool'): boolean {
  if (goTrue.has(text)) return true;
  if (goFalse.has(text)) return false;
  throw new BoolSyntaxError(`${flag} must be a boolean (true/false, 1/0, t/f), got ${JSON.stringify(text)}`);
}

/** A commander argument parser for a Go bool flag (`--flag`, `--flag=true`, `--flag=0`). */
export function goBoolArgument(flag: string): (value: string) => boolean {
  return (value: string) => {
    try {
      return parseGoBool(value, flag);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}
