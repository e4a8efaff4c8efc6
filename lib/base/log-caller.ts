// The source location that called a logger method, for klog's file:line header and the JSON "caller":
// one stack frame captured above the method itself, read from V8's stack text (which tsx and
// --enable-source-maps map back to the TypeScript source).
import type { CallerLocation } from './log-record.js';

// The logger method whose caller is wanted: frames from it upwards are left out of the stack.
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function callerOf(method: Function): CallerLocation | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  try {
    Error.captureStackTrace(holder, method);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return parseFrame(holder.stack ?? '');
}

/** The first frame of a stack text: "Error\n    at fn (file:///x/y.ts:12:5)" or "…\n    at file:///x/y.ts:12:5" → { file, line }. */
export function parseFrame(stack: string): CallerLocation | undefined {
  const nl = stack.indexOf('\n');
  if (nl < 0) return undefined;
  const next = stack.indexOf('\n', nl + 1);
  let frame = stack.slice(nl + 1, next < 0 ? undefined : next).trim();
  if (frame.startsWith('at ')) frame = frame.slice(3);
  if (frame.endsWith(')')) frame = frame.slice(frame.lastIndexOf('(') + 1, -1);
  const colonCol = frame.lastIndexOf(':');
  const colonLine = colonCol > 0 ? frame.lastIndexOf(':', colonCol - 1) : -1;
  if (colonLine <= 0) return undefined;
  const line = Number(frame.slice(colonLine + 1, colonCol));
  if (!Number.isInteger(line)) return undefined;
  return { file: frame.slice(0, colonLine), line };
}
