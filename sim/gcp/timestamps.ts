// GCE writes timestamps in RFC 3339 with a Pacific offset and milliseconds, e.g. "2026-01-01T04:00:00.000-08:00";
// the emulator uses a fixed -07:00 so output does not depend on daylight saving or the host's zone.
const OFFSET_MS = -7 * 3600_000;

export function gceTimestamp(ms: number): string {
  return `${new Date(ms + OFFSET_MS).toISOString().slice(0, 23)}-07:00`;
}
