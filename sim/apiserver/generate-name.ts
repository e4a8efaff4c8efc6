// kube-apiserver's name generation for metadata.generateName (its SimpleNameGenerator): the prefix is cut to
// 58 characters and 5 random characters from kube's alphabet (no vowels, nor 0, 1 or 3, which read as vowels:
// no words) are appended, so a generated name is at most 63 characters: a valid DNS label whatever
// the kind, and short enough for a cloud whose instance names derive from it.

/** The longest name a generated one may be: a DNS label. */
const MAX_NAME_LENGTH = 63;
const RANDOM_LENGTH = 5;
/** How much of the prefix is kept. */
export const MAX_GENERATED_PREFIX_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;
export const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A name from `prefix`; `random` returns a number in [0, 1) (default Math.random). */
export function generateName(prefix: string, random: () => number = Math.random): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++)
    suffix += GENERATED_NAME_ALPHABET[Math.floor(random() * GENERATED_NAME_ALPHABET.length)];
  return `${prefix.slice(0, MAX_GENERATED_PREFIX_LENGTH)}${suffix}`;
}
