// "Describe by ids" as EC2 does it: every named id must exist, and the error lists the missing ones.
import { Ec2ApiError, idsNotFound } from '../api-error.js';

export function selectByIds<T>(
  all: readonly T[],
  ids: readonly string[],
  idOf: (x: T) => string,
  notFound: (missing: string[]) => Ec2ApiError,
): T[] {
  if (ids.length === 0) return [...all];
  const missing = ids.filter((id) => !all.some((x) => idOf(x) === id));
  if (missing.length > 0) throw notFound(missing);
  return all.filter((x) => ids.includes(idOf(x)));
}

export const notFoundFor =
  (code: string, noun: string) =>
  (missing: string[]): Ec2ApiError =>
    idsNotFound(code, noun, missing);

export const notFoundEach =
  (code: string, message: (id: string) => string) =>
  (missing: string[]): Ec2ApiError =>
    new Ec2ApiError(400, code, missing.map(message).join('; '));
