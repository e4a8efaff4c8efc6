// Go's strconv.Quote, which klog uses for messages and string values: printable characters stay as they
// are, quotes and backslashes are escaped, control characters get Go's escapes (\n, \t, \x01, \u2028), so
// a log line never breaks in two and reads the same as a Go binary's.

/** Unicode's graphic classes (letters, marks, numbers, punctuation, symbols): Go's unicode.IsPrint, with ' '. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

const shortEscapes: Record<number, string> = {
  0x07: '\\a',
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0b: '\\v',
  0x0c: '\\f',
  0x0d: '\\r',
  0x22: '\\"',
  0x5c: '\\\\',
};

export function goQuote(s: string): string {
  if (isPlainAscii(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    const short = shortEscapes[cp];
    if (short !== undefined) out += short;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (printable.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + '"';
}

function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
