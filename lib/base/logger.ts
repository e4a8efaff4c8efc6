// Structured logs (klog's text format or Kubernetes' JSON, see structured-logger.ts): a message with key/value
// pairs; a child logger carries pairs of its own (controller, key, reconcileID).

export type LogFields = Record<string, unknown>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  /** Verbosity-gated info: printed when the logger's -v level is >= level. */
  debug(msg: string, fields?: LogFields, level?: number): void;
  child(fields: LogFields): Logger;
}
