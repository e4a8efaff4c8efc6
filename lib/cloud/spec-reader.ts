// Reads an untyped JSON object (a providerSpec) field by field. Every wrong type becomes a FieldIssue naming
// the full field path; every key the reader was never asked about is reported as unknown, so nothing a user
// wrote is silently dropped (the reference plain-unmarshals and loses them).

export interface FieldIssue {
  /** Full path, e.g. "spec.providerSpec.value.placement.region". */
  field: string;
  message: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Longest value excerpt an issue quotes, and longest unknown key a field path spells out. */
const PREVIEW_LENGTH = 80;
const MAX_KEY_IN_PATH = 64;

/**
 * Longest string any providerSpec field may hold. Kube stores values far larger than any cloud accepts; the
 * largest legitimate one is a GCE metadata value (256 KiB). Fields with a tighter cloud limit check it too.
 */
export const MAX_SPEC_STRING_LENGTH = 256 * 1024;

/**
 * The value as JSON, cut at PREVIEW_LENGTH characters. It writes only what it prints, so a value nested ten
 * thousand levels deep or a string of megabytes costs no more than a short one (JSON.stringify of the former
 * overflows the stack and throws a RangeError).
 */
export function previewValue(v: unknown): string {
  let out = '';
  const write = (x: unknown): boolean => {
    if (out.length > PREVIEW_LENGTH) return false;
    if (Array.isArray(x)) {
      out += '[';
      for (let i = 0; i < x.length; i++) {
        if (i > 0) out += ',';
        if (!write(x[i])) return false;
      }
      out += ']';
    } else if (isObject(x)) {
      out += '{';
      let first = true;
      for (const key in x) {
        if (!Object.hasOwn(x, key)) continue;
        if (!first) out += ',';
        first = false;
        out += `${JSON.stringify(key.slice(0, PREVIEW_LENGTH))}:`;
        if (!write(x[key])) return false;
      }
      out += '}';
    } else if (typeof x === 'string') {
      out += JSON.stringify(x.slice(0, PREVIEW_LENGTH + 1));
    } else {
      out += JSON.stringify(x) ?? String(x);
    }
    return true;
  };
  write(v);
  return out.length > PREVIEW_LENGTH ? `${out.slice(0, PREVIEW_LENGTH - 3)}...` : out;
}

const describe = previewValue;

/** `path.key`, with a key longer than MAX_KEY_IN_PATH shortened, so a hostile key cannot bloat messages. */
export const keyPath = (path: string, key: string): string =>
  `${path}.${key.length > MAX_KEY_IN_PATH ? `${key.slice(0, MAX_KEY_IN_PATH - 3)}...` : key}`;

/** Kubernetes field.Error wording: `<field>: Invalid value: <value>: <detail>`. */
export const invalidValue = (field: string, value: unknown, detail: string): FieldIssue => ({
  field,
  message: `${field}: Invalid value: ${describe(value)}: ${detail}`,
});
export const requiredValue = (field: string, detail: string): FieldIssue => ({
  field,
  message: `${field}: Required value: ${detail}`,
});
export const unsupportedValue = (field: string, value: unknown, allowed: readonly string[]): FieldIssue => ({
  field,
  message: `${field}: Unsupported value: ${describe(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`,
});
export const forbiddenValue = (field: string, detail: string): FieldIssue => ({
  field,
  message: `${field}: Forbidden: ${detail}`,
});
/** Kubernetes' wording for a string over its limit; the value itself is only previewed. */
export const tooLong = (field: string, value: string, max: number): FieldIssue => ({
  field,
  message: `${field}: Too long: ${describe(value)}: may not be longer than ${max} characters`,
});

/** Collects type errors and unknown keys while a decoder walks an object. */
export class SpecReader {
  readonly errors: FieldIssue[] = [];
  readonly unknownFields: string[] = [];

  /** Opens the object at `path`; undefined/null read as absent. Call done() after reading its keys. */
  object(value: unknown, path: string): ObjectReader | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) {
      this.errors.push(invalidValue(path, value, 'must be an object'));
      return undefined;
    }
    return new ObjectReader(this, value, path);
  }

  array<T>(value: unknown, path: string, item: (v: unknown, path: string) => T | undefined): T[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.errors.push(invalidValue(path, value, 'must be an array'));
      return undefined;
    }
    const out: T[] = [];
    value.forEach((v, i) => {
      const decoded = item(v, `${path}[${i}]`);
      if (decoded !== undefined) out.push(decoded);
    });
    return out;
  }

  string(value: unknown, path: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.errors.push(invalidValue(path, value, 'must be a string'));
      return undefined;
    }
    if (value.length > MAX_SPEC_STRING_LENGTH) {
      this.errors.push(tooLong(path, value, MAX_SPEC_STRING_LENGTH));
      return undefined;
    }
    return value;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.errors.push(invalidValue(path, value, 'must be a boolean'));
      return undefined;
    }
    return value;
  }

  integer(value: unknown, path: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.errors.push(invalidValue(path, value, 'must be an integer'));
      return undefined;
    }
    return value;
  }
}

export class ObjectReader {
  private readonly seen = new Set<string>();

  constructor(
    private readonly reader: SpecReader,
    private readonly value: Record<string, unknown>,
    readonly path: string,
  ) {}

  /** Own properties only: a key the user did not write never resolves to something inherited from Object.prototype. */
  private own(key: string): unknown {
    return Object.hasOwn(this.value, key) ? this.value[key] : undefined;
  }

  private take(key: string): unknown {
    this.seen.add(key);
    return this.own(key);
  }

  /** Marks keys as known without decoding them (e.g. apiVersion/kind). */
  ignore(...keys: string[]): void {
    for (const k of keys) this.seen.add(k);
  }

  raw(key: string): unknown {
    return this.take(key);
  }

  has(key: string): boolean {
    const v = this.own(key);
    return v !== undefined && v !== null;
  }

  field(key: string): string {
    return `${this.path}.${key}`;
  }

  string(key: string): string | undefined {
    return this.reader.string(this.take(key), this.field(key));
  }

  boolean(key: string): boolean | undefined {
    return this.reader.boolean(this.take(key), this.field(key));
  }

  integer(key: string): number | undefined {
    return this.reader.integer(this.take(key), this.field(key));
  }

  object<T>(key: string, decode: (o: ObjectReader) => T): T | undefined {
    const o = this.reader.object(this.take(key), this.field(key));
    if (!o) return undefined;
    const out = decode(o);
    o.done();
    return out;
  }

  array<T>(key: string, item: (v: unknown, path: string) => T | undefined): T[] | undefined {
    return this.reader.array(this.take(key), this.field(key), item);
  }

  objectArray<T>(key: string, decode: (o: ObjectReader) => T): T[] | undefined {
    return this.array(key, (v, path) => {
      const o = this.reader.object(v, path);
      if (!o) return undefined;
      const out = decode(o);
      o.done();
      return out;
    });
  }

  stringArray(key: string): string[] | undefined {
    return this.array(key, (v, path) => this.reader.string(v, path));
  }

  /** Reports every key of this object that no accessor asked for. */
  done(): void {
    for (const key of Object.keys(this.value)) {
      if (!this.seen.has(key)) this.reader.unknownFields.push(keyPath(this.path, key));
    }
  }
}
