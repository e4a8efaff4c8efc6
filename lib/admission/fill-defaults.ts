// Merges a provider's defaults into the providerSpec the user wrote. A provider's decoder returns the whole
// spec as it reads it, defaults applied; a mutating webhook must persist the defaults and change nothing
// else. So a value is taken from the decoded spec only where the user wrote nothing (absent, null, "" or an
// empty list, or 0 where the decoder chose a number) and only when it is not itself a zero value: the
// decoder's zero placeholders (false, 0, "", {}) are how it reads "unset", not defaults to be written.
import { setOwn } from '../cloud/spec-issues.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

function isUnwritten(raw: unknown, defaulted: unknown): boolean {
  if (raw === undefined || raw === null || raw === '') return true;
  if (raw === 0 && typeof defaulted === 'number') return true;
  return Array.isArray(raw) && raw.length === 0 && Array.isArray(defaulted);
}

/** `raw` with every unwritten field that `defaulted` sets filled in; `raw` itself is not modified. */
export function fillDefaults(raw: unknown, defaulted: unknown): unknown {
  if (isZero(defaulted)) return raw;
  if (isUnwritten(raw, defaulted)) return structuredClone(defaulted);
  if (isObject(raw) && isObject(defaulted)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(raw)) setOwn(out, key, raw[key]);
    for (const key of Object.keys(defaulted)) {
      const merged = fillDefaults(Object.hasOwn(raw, key) ? raw[key] : undefined, defaulted[key]);
      if (merged !== undefined) setOwn(out, key, merged);
    }
    return out;
  }
  if (Array.isArray(raw) && Array.isArray(defaulted) && raw.length === defaulted.length) {
    return raw.map((item, i) => fillDefaults(item, defaulted[i]));
  }
  return raw;
}
