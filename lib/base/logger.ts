// Structured logs: one JSON object a line; a child logger carries fields (controller, key, reconcileID).

export type LogFields = Record<string, unknown>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  /** Verbosity-gated info: printed when the logger's -v level is >= level. */
  debug(msg: string, fields?: LogFields, level?: number): void;
  child(fields: LogFields): Logger;
}
