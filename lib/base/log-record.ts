// One log line before it is formatted: what klog's text and Kubernetes' JSON formats both print.

/** klog's severities: Info, Warning, Error. */
export type Severity = 'I' | 'W' | 'E';

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export interface CallerLocation {
  /** The source path as the stack shows it (a file: URL or a path). */
  file: string;
  line: number;
}

export interface LogRecord {
  severity: Severity;
  /** The verbosity of an info line (`V(n)`); 0 for warnings and errors. */
  v: number;
  /** Milliseconds since the epoch, with a fraction for microseconds. */
  timeMs: number;
  caller: CallerLocation | undefined;
  msg: string;
  /** The error of an error line (klog's and logr's `err` key); undefined when none. */
  err?: unknown;
  /** Key/value pairs, parents' first, each key once. */
  fields: ReadonlyArray<readonly [string, unknown]>;
}

/** The last `segments` parts of a path: 1 = the file name (klog), 2 = its folder too (zap's short caller). */
export function shortPath(file: string, segments: 1 | 2): string {
  let cut = file.lastIndexOf('/');
  if (segments === 2 && cut > 0) cut = file.lastIndexOf('/', cut - 1);
  return cut < 0 ? file : file.slice(cut + 1);
}
