// Bool flags read as Go's flag package reads them: `--leader-elect=1` or `--logtostderr=True` mean what
// the operator means by them in the Go binaries.
import { InvalidArgumentError } from 'commander';
import { parseGoBool } from '../../lib/index.js';

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
