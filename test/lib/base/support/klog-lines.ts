// Reads klog text log lines back (header, quoted message, key=value pairs, multi-line blocks), so tests
// check what a line says rather than how it is spelled.

export interface KlogLine {
  severity: 'I' | 'W' | 'E' | 'F';
  /** "MMDD hh:mm:ss.uuuuuu" as printed. */
  time: string;
  pid: number;
  file: string;
  line: number;
  msg: string;
  /** Quoted and block values as strings, the others JSON-decoded. */
  fields: Record<string, unknown>;
  raw: string;
}

const HEADER = /^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}\.\d{6}) +(\d+) ([^\s:]+):(\d+)\] /;

/** Every klog line of a text; lines that are not klog's (other output) are skipped. */
export function parseKlogLines(text: string): KlogLine[] {
  const out: KlogLine[] = [];
  let pos = 0;
  while (pos < text.length) {
    const eol = text.indexOf('\n', pos);
    const lineEnd = eol < 0 ? text.length : eol;
    const m = HEADER.exec(text.slice(pos, lineEnd));
    if (!m) {
      pos = lineEnd + 1;
      continue;
    }
    const line = parseBody(text, pos, m);
    out.push(line);
    pos = pos + line.raw.length + 1;
  }
  return out;
}

/** The message and pairs after a header; a block value (key=<, tab-indented lines, " >") spans lines. */
function parseBody(text: string, start: number, m: RegExpExecArray): KlogLine {
  let pos = start + m[0].length;
  const [msg, afterMsg] = readQuoted(text, pos);
  pos = afterMsg;
  const fields: Record<string, unknown> = {};
  while (text[pos] === ' ') {
    const eq = text.indexOf('=', pos);
    if (eq < 0) break;
    const key = text.slice(pos + 1, eq);
    pos = eq + 1;
    if (text[pos] === '"') {
      const [v, next] = readQuoted(text, pos);
      fields[key] = v;
      pos = next;
    } else if (text.startsWith('<\n', pos)) {
      const end = text.indexOf('\n >', pos);
      fields[key] = text
        .slice(pos + 2, end)
        .split('\n')
        .map((l) => l.slice(1))
        .join('\n');
      pos = end + 3;
    } else {
      const end = jsonEnd(text, pos);
      fields[key] = JSON.parse(text.slice(pos, end));
      pos = end;
    }
  }
  return {
    severity: m[1] as KlogLine['severity'],
    time: m[2] ?? '',
    pid: Number(m[3]),
    file: m[4] ?? '',
    line: Number(m[5]),
    msg,
    fields,
    raw: text.slice(start, pos),
  };
}

/** Go's strconv.Unquote of the quoted string starting at `pos`; returns the value and the index after it. */
export function readQuoted(s: string, pos: number): [string, number] {
  if (s[pos] !== '"') throw new Error(`expected a quoted string at ${pos} of ${JSON.stringify(s)}`);
  let out = '';
  let i = pos + 1;
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '"': '"',
    '\\': '\\',
  };
  while (i < s.length && s[i] !== '"') {
    if (s[i] !== '\\') {
      out += s[i];
      i++;
      continue;
    }
    const e = s[i + 1] ?? '';
    if (e in simple) {
      out += simple[e];
      i += 2;
    } else {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (width === 0) throw new Error(`bad escape \\${e} in ${JSON.stringify(s)}`);
      out += String.fromCodePoint(parseInt(s.slice(i + 2, i + 2 + width), 16));
      i += 2 + width;
    }
  }
  return [out, i + 1];
}

/** Where the JSON value starting at `pos` ends: matching brackets outside strings, or the next space. */
function jsonEnd(s: string, pos: number): number {
  if (s[pos] !== '{' && s[pos] !== '[') {
    let i = pos;
    while (i < s.length && s[i] !== ' ' && s[i] !== '\n') i++;
    return i;
  }
  let depth = 0;
  let inString = false;
  for (let i = pos; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return s.length;
}
