// How deeply JSON text nests, measured in one pass without parsing it: code that walks decoded objects
// recursively must refuse a hostile body nested tens of thousands of levels deep before JSON.parse builds it.
// The webhook server and the local control plane each choose their own limit.

/** Whether the text nests objects and arrays deeper than `limit`, stopping as soon as it does. Brackets in strings do not count; malformed JSON is left for JSON.parse. */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
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
