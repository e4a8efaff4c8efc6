// An error answer in EC2's (or ELB's) own terms: HTTP status, error code and message.

export class Ec2ApiError extends Error {
  override readonly name = 'Ec2ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const invalidParameterValue = (message: string): Ec2ApiError =>
  new Ec2ApiError(400, 'InvalidParameterValue', message);
export const missingParameter = (name: string): Ec2ApiError =>
  new Ec2ApiError(400, 'MissingParameter', `The request must contain the parameter ${name}`);
export const invalidParameterCombination = (message: string): Ec2ApiError =>
  new Ec2ApiError(400, 'InvalidParameterCombination', message);
export const dryRunSucceeded = (): Ec2ApiError =>
  new Ec2ApiError(412, 'DryRunOperation', 'Request would have succeeded, but DryRun flag is set.');

/** EC2 lists every missing id in one message, singular or plural. */
export function idsNotFound(code: string, noun: string, ids: readonly string[]): Ec2ApiError {
  const quoted = `'${ids.join(', ')}'`;
  return new Ec2ApiError(
    400,
    code,
    ids.length === 1 ? `The ${noun} ID ${quoted} does not exist` : `The ${noun} IDs ${quoted} do not exist`,
  );
}
