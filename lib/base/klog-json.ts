// The Kubernetes JSON log format (k8s.io/component-base/logs/json, --logging-format=json): one object a
// line with "ts" (milliseconds since the epoch as a float, as that encoder writes it), "caller" (folder/file:line),
// "msg", "v" on info lines, "err" on error lines that have one, then the key/value pairs. Warnings are info
// lines at v=0, as klog hands them to a structured logger.
import { errorText, safeStringify } from './log-values.js';
import { shortPath, type LogRecord } from './log-record.js';

export function klogJsonLine(r: LogRecord): string {
  const caller = r.caller ? `${shortPath(r.caller.file, 2)}:${r.caller.line}` : '???:1';
  let out = `{"ts":${r.timeMs},"caller":${JSON.stringify(caller)},"msg":${JSON.stringify(r.msg)}`;
  if (r.severity !== 'E') out += `,"v":${r.v}`;
  else if (r.err !== undefined)
    out += `,"err":${JSON.stringify(r.err instanceof Error ? errorText(r.err) : errText(r.err))}`;
  for (const [k, v] of r.fields) out += `,${JSON.stringify(k)}:${safeStringify(v)}`;
  return out + '}\n';
}

function errText(err: unknown): string {
  return typeof err === 'string' ? err : safeStringify(err);
}
