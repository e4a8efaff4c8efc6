// How deeply an AdmissionReview body may nest. Everything after decoding (the rules, the defaults merge,
// the patch diff) walks objects recursively, so a hostile body nested tens of thousands of levels deep
// must be refused before it is parsed. Real Machines nest about 15 levels; 512 leaves a wide margin.
export const MaxAdmissionJsonDepth = 512;

/** The depth the text nests objects and arrays to, stopping as soon as it passes `limit`. Brackets in strings do not count. */
export function jsonNestingExceeds(text: string, limit = MaxAdmissionJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
