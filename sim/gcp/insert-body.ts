// Readers for the loosely typed JSON of an instances.insert body: a missing or mistyped part reads as empty,
// so each builder step checks the fields it needs and names them in its own error.

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
