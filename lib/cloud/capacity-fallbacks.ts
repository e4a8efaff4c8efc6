// The `fallbacks` list of a providerSpec, the same on every cloud: an ordered list of partial providerSpecs, each
// merged over the primary, that a Machine may run on when the cloud has no capacity for the primary. It lives
// inside providerSpec.value because the machine-api-operator's CRDs prune unknown fields everywhere else.
// A provider says which fields an entry may set (its capacity fields: instance type, zone with its subnet,
// market) and how to decode and validate a whole spec; the shape, the merge, the field paths, the limit on
// entries and the architecture rule are here, once.
import { forbiddenValue, invalidValue, keyPath, requiredValue, type FieldIssue } from './spec-reader.js';
import { setOwn } from './spec-issues.js';

/** The providerSpec key of the list. */
export const FALLBACKS_FIELD = 'fallbacks';
/** At most this many entries: each refused one costs a cloud call, and a long list hides a MachineSet per type. */
export const MAX_FALLBACKS = 8;

/** Which fields a cloud lets a fallback entry set. */
export interface FallbackFieldRules {
  /** Dotted paths an entry may set ("instanceType", "placement.availabilityZone"); a path allows its whole subtree. */
  fields: readonly string[];
  /** A pair `[a, b]` means an entry that sets `a` sets `b` too (a zone comes with a subnet of that zone). */
  together?: ReadonlyArray<readonly [string, string]>;
}

/** What a cloud tells the list's decoder about its specs. */
export interface FallbackDecoding<S> {
  rules: FallbackFieldRules;
  /** Adjusts an entry merged over the primary where one field of the entry replaces others (a market's options). */
  adjust?(merged: Record<string, unknown>, entry: Record<string, unknown>): void;
  /** Decodes, defaults and validates one whole providerSpec value whose fields sit under `path`. */
  decode(value: Record<string, unknown>, path: string): { spec: S; errors: readonly FieldIssue[] };
  /** The instance type of a spec: the field that names it, its name, and its CPU architecture where the name tells. */
  typeOf(spec: S): { field: string; name: string; architecture?: string };
}

/** One whole providerSpec read and validated at a path: its spec, every issue, its warnings and unknown fields. */
export interface CheckedSpec<S> {
  spec: S;
  errors: FieldIssue[];
  warnings: string[];
  unknownFields: string[];
}

/** How one whole providerSpec is checked at a path: read by the decoder, then held to the validation rules. */
export interface SpecChecks<S> {
  /** Decodes and defaults a spec whose fields sit under `path`: its spec, the decoder's issues and warnings. */
  read(value: unknown, path: string): CheckedSpec<S>;
  /** The validation rules' issues and warnings for a spec read at `path`. */
  validate(spec: S, path: string): { errors: readonly FieldIssue[]; warnings: readonly string[] };
}

/**
 * A providerSpec value and its fallback entries read and validated: the primary's spec, warnings and unknown
 * fields, the entries merged over it, and every issue of both (the reader's and the rules', each at its path).
 */
export function checkWithFallbacks<S>(
  value: unknown,
  path: string,
  checks: SpecChecks<S>,
  d: Omit<FallbackDecoding<S>, 'decode'>,
): CheckedSpec<S> & { fallbacks: S[] } {
  const check = (v: unknown, at: string): CheckedSpec<S> => {
    const read = checks.read(v, at);
    const rules = checks.validate(read.spec, at);
    return { ...read, errors: [...read.errors, ...rules.errors], warnings: [...read.warnings, ...rules.warnings] };
  };
  const primary = check(value, path);
  const fallbacks = decodeFallbacks(value, path, primary.spec, primary.errors, { ...d, decode: check });
  return { ...primary, fallbacks: fallbacks.specs, errors: [...primary.errors, ...fallbacks.errors] };
}

/** The decoded entries (merged over the primary, in order) and every issue, each naming its entry's path. */
export interface DecodedFallbacks<S> {
  specs: S[];
  errors: FieldIssue[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `entry` merged over `primary` (whose own `fallbacks` is left out): objects merge key by key, anything else is
 * replaced, and a null removes the key (an entry's `spotMarketOptions: null` makes a spot primary on-demand).
 */
export function mergeFallback(
  primary: Record<string, unknown>,
  entry: Record<string, unknown>,
): Record<string, unknown> {
  const merge = (base: Json, over: Json): Json => {
    const out: Json = {};
    for (const [k, v] of Object.entries(base)) setOwn(out, k, v);
    for (const [k, v] of Object.entries(over)) {
      if (v === null) delete out[k];
      else setOwn(out, k, isObject(v) && isObject(out[k]) ? merge(out[k], v) : v);
    }
    return out;
  };
  const base = { ...primary };
  delete base[FALLBACKS_FIELD];
  return merge(base, entry);
}

/** The dotted paths an entry sets (down to the first allowed path), with the issues of paths it may not set. */
function entryFields(entry: Json, path: string, rules: FallbackFieldRules): { set: string[]; errors: FieldIssue[] } {
  const set: string[] = [];
  const errors: FieldIssue[] = [];
  const walk = (o: Json, prefix: string): void => {
    for (const [k, v] of Object.entries(o)) {
      const dotted = prefix ? `${prefix}.${k}` : k;
      if (rules.fields.includes(dotted)) set.push(dotted);
      else if (isObject(v) && rules.fields.some((f) => f.startsWith(`${dotted}.`))) walk(v, dotted);
      else
        errors.push(
          forbiddenValue(
            keyPath(path, dotted),
            `a fallback entry may set only ${rules.fields.join(', ')}; every other field comes from the primary`,
          ),
        );
    }
  };
  walk(entry, '');
  return { set, errors };
}

/** The issue of an entry's field as the primary would have it, to drop an issue the primary reports already. */
function asPrimaryIssue(issue: FieldIssue, entryPath: string, path: string): string | undefined {
  if (!issue.field.startsWith(entryPath) || !issue.message.startsWith(issue.field)) return undefined;
  const field = path + issue.field.slice(entryPath.length);
  return field + issue.message.slice(issue.field.length);
}

/**
 * Reads and validates `value.fallbacks` of the providerSpec `value` at `path`, whose primary decoded to `primary`
 * with `primaryErrors`. Each entry is merged over the primary and validated whole; an issue the primary has
 * already is not repeated for every entry. Without the key: no entries, no issues.
 */
export function decodeFallbacks<S>(
  value: unknown,
  path: string,
  primary: S,
  primaryErrors: readonly FieldIssue[],
  d: FallbackDecoding<S>,
): DecodedFallbacks<S> {
  const out: DecodedFallbacks<S> = { specs: [], errors: [] };
  if (!isObject(value) || !Object.hasOwn(value, FALLBACKS_FIELD)) return out;
  const raw = value[FALLBACKS_FIELD];
  const listPath = `${path}.${FALLBACKS_FIELD}`;
  if (raw === null || raw === undefined) return out;
  if (!Array.isArray(raw)) {
    out.errors.push(invalidValue(listPath, raw, 'must be a list of partial providerSpecs'));
    return out;
  }
  if (raw.length > MAX_FALLBACKS) {
    out.errors.push({
      field: listPath,
      message: `${listPath}: Too many: ${raw.length}: must have at most ${MAX_FALLBACKS} items`,
    });
    return out;
  }
  const seen = new Set(primaryErrors.map((e) => e.message));
  const primaryType = d.typeOf(primary);
  raw.forEach((entry: unknown, i) => {
    const entryPath = `${listPath}[${i}]`;
    if (!isObject(entry) || Object.keys(entry).length === 0) {
      out.errors.push(invalidValue(entryPath, entry, 'must be an object setting at least one capacity field'));
      return;
    }
    const fields = entryFields(entry, entryPath, d.rules);
    out.errors.push(...fields.errors);
    for (const [a, b] of d.rules.together ?? [])
      if (fields.set.includes(a) && !fields.set.includes(b))
        out.errors.push(requiredValue(`${entryPath}.${b}`, `an entry that sets ${a} sets ${b} too`));
    if (fields.errors.length > 0) return;
    const merged = mergeFallback(value, entry);
    d.adjust?.(merged, entry);
    const decoded = d.decode(merged, entryPath);
    for (const issue of decoded.errors) {
      const same = asPrimaryIssue(issue, entryPath, path);
      if (same === undefined || !seen.has(same)) out.errors.push(issue);
    }
    const type = d.typeOf(decoded.spec);
    if (primaryType.architecture && type.architecture && type.architecture !== primaryType.architecture)
      out.errors.push(
        invalidValue(
          `${entryPath}.${type.field}`,
          type.name,
          `runs on ${type.architecture}; every entry must have the primary's CPU architecture (${primaryType.architecture})`,
        ),
      );
    out.specs.push(decoded.spec);
  });
  return out;
}
