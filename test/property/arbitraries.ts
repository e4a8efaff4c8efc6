// fast-check generators of malformed input: JSON of every shape, hostile strings, and valid specs with one
// field swapped for something of the wrong type, size or nesting.
import fc from 'fast-check';

/** Strings that tend to break parsers and printers: unicode planes, control characters, huge lengths. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\uffff',
    '\ud800',
    '💥🚀',
    'ami-',
    'subnet-0',
    '../../etc/passwd',
    '${jndi:x}',
    '%s%n',
    'null',
    '-1e309',
  ),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)),
);

const hugeNumber = fc.constantFrom(
  Number.MAX_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  1e308,
  -0,
  0.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 64,
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  hugeNumber,
  fc.boolean(),
  fc.constant(null),
);

/** Any JSON value, including deep nesting. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(
    fc.oneof(
      hostileString,
      fc.constantFrom('ami', 'id', 'filters', 'tags', 'name', 'value', '__proto__', 'constructor'),
    ),
    tie('value'),
    { maxKeys: 5 },
  ),
})).value;

export function deepNest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

/** Sets the value at a dotted path (creating objects on the way); array indexes are numbers in the path. */
export function setPath(
  target: Record<string, unknown>,
  path: Array<string | number>,
  value: unknown,
): Record<string, unknown> {
  const root = structuredClone(target);
  let cur: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i] as string | number;
    const next = cur[k];
    if (typeof next !== 'object' || next === null) cur[k] = {};
    cur = cur[k] as Record<string | number, unknown>;
  }
  cur[path[path.length - 1] as string | number] = value;
  return root;
}
