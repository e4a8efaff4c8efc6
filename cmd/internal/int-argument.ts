// Integer flags, checked the same way by every binary: the message names the flag, the bound and the value.
import { InvalidArgumentError } from 'commander';

/** A commander argument parser accepting an integer >= min. */
export function intArg(flag: string, min: number): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
    return n;
  };
}
