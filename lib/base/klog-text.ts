// klog's text format, as the Go binaries write it with --logtostderr:
//   I1128 06:32:59.123456       1 machine-controller.ts:123] "Reconciling" machine="ns/name" attempt=2
// severity letter, month and day, local time with microseconds, the pid right-aligned in 7 columns, the
// caller's file:line, then the quoted message and key=value pairs: strings quoted as Go's strconv.Quote,
// a string with line breaks as an indented block (key=<, tab-indented lines, " >"), errors as their message,
// everything else as JSON. An error line's error comes first, as err="...".
import { goQuote } from './go-quote.js';
import { errorText, safeStringify } from './log-values.js';
import { shortPath, type LogRecord } from './log-record.js';

export interface KlogTextOptions {
  pid: number;
  /** klog's --skip_headers: no header, the line starts at the message. */
  skipHeaders?: boolean;
  /** klog's --add_dir_header: the caller's folder before its file name. */
  addDirHeader?: boolean;
}

export function klogTextLine(r: LogRecord, opts: KlogTextOptions): string {
  let out = opts.skipHeaders ? '' : header(r, opts);
  out += goQuote(r.msg);
  if (r.err !== undefined) out += ` err${textValue(r.err)}`;
  for (const [k, v] of r.fields) out += ` ${k}${textValue(v)}`;
  return out + '\n';
}

function header(r: LogRecord, opts: KlogTextOptions): string {
  const t = new Date(Math.floor(r.timeMs));
  const micros = Math.floor((r.timeMs - Math.floor(r.timeMs / 1000) * 1000) * 1000);
  const file = r.caller ? shortPath(r.caller.file, opts.addDirHeader ? 2 : 1) : '???';
  const line = r.caller ? r.caller.line : 1;
  return (
    r.severity +
    two(t.getMonth() + 1) +
    two(t.getDate()) +
    ' ' +
    two(t.getHours()) +
    ':' +
    two(t.getMinutes()) +
    ':' +
    two(t.getSeconds()) +
    '.' +
    String(micros).padStart(6, '0') +
    ' ' +
    String(opts.pid).padStart(7, ' ') +
    ' ' +
    `${file}:${line}] `
  );
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `=value` for one value, klog's way. */
function textValue(v: unknown): string {
  if (typeof v === 'string') return stringValue(v);
  if (v instanceof Error) return stringValue(errorText(v));
  if (v instanceof Date) return stringValue(Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString());
  if (typeof v === 'bigint') return `=${v}`;
  return `=${htmlSafe(safeStringify(v))}`;
}

function stringValue(s: string): string {
  if (!s.includes('\n')) return `=${goQuote(s)}`;
  // One tab before every line, the closing " >" on a line of its own (a trailing line break adds none).
  const lines = s.split('\n');
  const last = lines.pop() ?? '';
  let out = '=<\n';
  for (const l of lines) out += `\t${l}\n`;
  return last === '' ? `${out} >` : `${out}\t${last}\n >`;
}

/** Go's encoding/json escapes <, > and & (and U+2028/9) inside strings; they only occur inside strings. */
function htmlSafe(json: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    const esc =
      c === 0x3c
        ? '\\u003c'
        : c === 0x3e
          ? '\\u003e'
          : c === 0x26
            ? '\\u0026'
            : c === 0x2028
              ? '\\u2028'
              : c === 0x2029
                ? '\\u2029'
                : undefined;
    if (esc === undefined) continue;
    out += json.slice(from, i) + esc;
    from = i + 1;
  }
  return from === 0 ? json : out + json.slice(from);
}
