// The property every provider's providerSpec decoder must have: whatever JSON the API server accepts, decoding
// either returns a spec or throws InvalidMachineConfigurationError naming a field under the providerSpec path,
// never anything else, and never touches a built-in prototype.
//
// Specs are generated as JSON text and parsed, as the API server hands them over (so "__proto__" is an own key,
// and nesting can go to kube's 10,000 levels, which JSON.stringify cannot even write). Most values are small,
// so 10,000 cases run in seconds; deep nesting and multi-megabyte strings come up a bounded number of times.
import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidMachineConfigurationError } from '../../lib/index.js';
import { setPath } from './arbitraries.js';

/** Cases per cloud in npm test; PROPERTY_RUNS raises it for a long run. */
export const SPEC_FUZZ_RUNS = Math.max(10_000, Number(process.env.PROPERTY_RUNS ?? 0));

/** How deep kube-apiserver lets a JSON value nest. */
export const KUBE_MAX_DEPTH = 10_000;
const FIVE_MB = 5 * 1024 * 1024;

const HOLE = '\u0000hole\u0000';

const text = (v: unknown): string => JSON.stringify(v);

/** Strings a decoder or validator might trip on: paths, signs, exponents, unicode, control characters, RegExp syntax. */
const trickyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    '',
    ' ',
    '../',
    '../../etc/passwd',
    'us-east-1/../x',
    '-1',
    '+1',
    '1e3',
    '0x10',
    'NaN',
    'Infinity',
    '0.05',
    '-0.05',
    '(a|a)*$',
    'us-(south',
    '.*',
    '\\',
    '\u0000',
    '\ud800',
    '\uffff',
    '💥',
    'İ',
    'ß',
    '\u202e',
    'a\nb',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'us-east-1',
    'us-east-1a',
    'us-central1',
    'us-central1-a',
    'us-south',
    'us-south-1',
    'm6i.large',
    'n1-standard-4',
    'bx2-4x16',
    'gp3',
    'io2',
    'standard',
    'Spot',
    'host',
    'Dynamic',
    'Enabled',
    'Terminate',
    'sdp',
    'custom',
    'crn:v1:x',
  ),
);

/** Numbers kube stores: integers and doubles at the edges of every range. */
const trickyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -3, max: 300 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    -1,
    -0,
    0.5,
    1e12,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53,
    Number.MAX_SAFE_INTEGER + 2,
    1e308,
    -1e308,
    16384,
    16385,
    65536,
    65537,
  ),
);

/** Small JSON values of every type, with "__proto__" and "constructor" keys that would pollute if merged naively. */
const smallJsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString.map(text),
    trickyNumber.map(text),
    fc.boolean().map(text),
    fc.constant('null'),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(
      fc.tuple(
        fc.oneof(
          trickyString,
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'id', 'name', 'value', 'filters'),
        ),
        tie('value'),
      ),
      {
        maxLength: 4,
      },
    )
    .map((entries) => `{${entries.map(([k, v]) => `${text(k)}:${v}`).join(',')}}`),
})).value;

/** "__proto__"/"constructor" payloads that pollute Object.prototype if anything assigns them through. */
const pollutingText: fc.Arbitrary<string> = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '[{"__proto__":{"polluted":"yes"},"name":"n","value":"v","id":"i"}]',
  '{"__proto__":{"polluted":"yes"},"name":"n","id":"i","filters":[{"__proto__":{"polluted":"yes"}}]}',
);

/** A value nested up to kube's limit, as arrays or objects, around a small leaf. */
const deepText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 100, max: KUBE_MAX_DEPTH }), fc.boolean(), smallJsonText)
  .map(([depth, arrays, leaf]) =>
    arrays ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`,
  );

/** A 5 MB string, ASCII or not. */
const hugeStringText: fc.Arbitrary<string> = fc
  .constantFrom('x', 'é', '💥', '-')
  .map((c) => `"${c.repeat(FIVE_MB / c.length)}"`);

/** One value for a field, as JSON text: mostly small; about 1% nested deep, and a handful (1 in 2,000) of 5 MB strings. */
export const fieldValueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 2000, arbitrary: smallJsonText },
  { weight: 150, arbitrary: pollutingText },
  { weight: 20, arbitrary: deepText },
  { weight: 1, arbitrary: hugeStringText },
);

/** Splices value texts into a copy of `base` at the given paths; returns the JSON text the API server would store. */
function specText(base: Record<string, unknown>, holes: Array<[Array<string | number>, string]>): string {
  let spec = base;
  holes.forEach(([path], i) => (spec = setPath(spec, path, `${HOLE}${i}`)));
  let out = text(spec);
  holes.forEach(([, value], i) => (out = out.replace(JSON.stringify(`${HOLE}${i}`), () => value)));
  return out;
}

/**
 * providerSpec values as JSON text: a valid base with one or two fields replaced (paths include unknown keys),
 * or a whole random value.
 */
export function providerSpecTexts(
  base: () => Record<string, unknown>,
  paths: ReadonlyArray<Array<string | number>>,
): fc.Arbitrary<string> {
  const path = fc.constantFrom(...paths);
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(path, fieldValueText).map(([p, v]) => specText(base(), [[p, v]])) },
    {
      weight: 2,
      arbitrary: fc.tuple(path, fieldValueText, path, smallJsonText).map(([p1, v1, p2, v2]) =>
        specText(base(), [
          [p1, v1],
          [p2, v2],
        ]),
      ),
    },
    { weight: 1, arbitrary: fieldValueText },
    { weight: 1, arbitrary: fc.constant(specText(base(), [])) },
  );
}

const prototypes: ReadonlyArray<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['String.prototype', String.prototype],
  ['Function.prototype', Function.prototype],
];

const ownKeys = (o: object): string => Reflect.ownKeys(o).map(String).sort().join(',');

/**
 * Runs `decode` over the generated spec texts and checks the property: a result, or an
 * InvalidMachineConfigurationError naming a field under `pathPrefix`; no built-in prototype changed.
 * Returns how many were accepted and rejected, so a test can check the generator reaches both.
 */
export function checkDecodeProperty(
  decode: (value: unknown) => unknown,
  specs: fc.Arbitrary<string>,
  pathPrefix: string,
  seed: number,
): { accepted: number; rejected: number } {
  const before = prototypes.map(([, p]) => ownKeys(p));
  let accepted = 0;
  let rejected = 0;
  fc.assert(
    fc.property(specs, (json) => {
      const value: unknown = JSON.parse(json);
      try {
        decode(value);
        accepted++;
      } catch (err) {
        if (!(err instanceof InvalidMachineConfigurationError))
          throw new Error(`untyped error ${String(err)} for ${json.slice(0, 200)}`, { cause: err });
        expect(err.field, err.message).to.be.a('string');
        expect((err.field ?? '').startsWith(pathPrefix), err.field).to.equal(true);
        expect(err.message.length, 'message length').to.be.below(8192);
        rejected++;
      }
      prototypes.forEach(([name, p], i) => expect(ownKeys(p), `${name} changed`).to.equal(before[i]));
      expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted').to.equal(undefined);
    }),
    { numRuns: SPEC_FUZZ_RUNS, seed, endOnFailure: true },
  );
  return { accepted, rejected };
}
