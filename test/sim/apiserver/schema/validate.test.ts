import { expect } from 'chai';
import type { JSONSchemaProps } from '../../../../sim/apiserver/schema/index.js';
import { apply, messages, valid } from './fixtures.js';

describe('applySchema: validation', () => {
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: string[] }> = [
    { name: 'a missing required field', spec: {}, want: ['FieldValueRequired spec.selector: Required value'] },
    {
      name: 'a value below minimum',
      spec: { selector: {}, replicas: -1 },
      want: [
        'FieldValueInvalid spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      ],
    },
    {
      name: 'a string where an integer is expected',
      spec: { selector: {}, replicas: 'string' },
      want: [
        'FieldValueTypeInvalid spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      ],
    },
    {
      name: 'a fraction where an integer is expected',
      spec: { selector: {}, replicas: 1.5 },
      want: [
        'FieldValueTypeInvalid spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
      ],
    },
    {
      name: 'a value outside an enum',
      spec: { selector: {}, deletePolicy: 'Bogus' },
      want: [
        'FieldValueNotSupported spec.deletePolicy: Unsupported value: "Bogus": supported values: "Random", "Newest", "Oldest"',
      ],
    },
    {
      name: 'an int32 overflow',
      spec: { selector: {}, minReadySeconds: 3000000000 },
      want: [
        'FieldValueInvalid spec.minReadySeconds: Invalid value: 3000000000: spec.minReadySeconds in body should be less than or equal to 2147483647',
      ],
    },
    {
      name: 'a missing required field inside an array item',
      spec: { selector: {}, template: { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k2' }] } } },
      want: ['FieldValueRequired spec.template.spec.taints[1].effect: Required value'],
    },
    {
      name: 'a wrongly typed additionalProperties value',
      spec: { selector: { matchLabels: { a: 1 } } },
      want: [
        'FieldValueTypeInvalid spec.selector.matchLabels.a: Invalid value: "integer": spec.selector.matchLabels.a in body must be of type string: "integer"',
      ],
    },
    {
      name: 'an array where an object is expected',
      spec: { selector: [] },
      want: [
        'FieldValueTypeInvalid spec.selector: Invalid value: "array": spec.selector in body must be of type object: "array"',
      ],
    },
  ];
  for (const c of cases) {
    it(`reports ${c.name} as kube-apiserver does`, () => {
      expect(messages(apply({ ...valid, spec: c.spec }).causes)).to.deep.equal(c.want);
    });
  }

  it('reports every problem, not only the first', () => {
    const r = apply({ ...valid, spec: { replicas: -2, deletePolicy: 'X' } });
    expect(r.causes.map((c) => c.field).sort()).to.deep.equal(['spec.deletePolicy', 'spec.replicas', 'spec.selector']);
  });

  it('reports a null in a non-nullable array item as a type error', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { l: { type: 'array', items: { type: 'string' } } } };
    expect(messages(apply({ l: ['a', null] }, schema).causes)).to.deep.equal([
      'FieldValueTypeInvalid l[1]: Invalid value: "null": l[1] in body must be of type string: "null"',
    ]);
  });

  const scalar = (s: JSONSchemaProps, v: unknown) =>
    messages(apply({ v }, { type: 'object', properties: { v: s } }).causes);

  const scalarCases: Array<{ name: string; schema: JSONSchemaProps; value: unknown; want: string[] }> = [
    {
      name: 'maximum',
      schema: { type: 'integer', maximum: 10 },
      value: 11,
      want: ['FieldValueInvalid v: Invalid value: 11: v in body should be less than or equal to 10'],
    },
    {
      name: 'exclusiveMaximum',
      schema: { type: 'number', maximum: 10, exclusiveMaximum: true },
      value: 10,
      want: ['FieldValueInvalid v: Invalid value: 10: v in body should be less than 10'],
    },
    {
      name: 'exclusiveMinimum',
      schema: { type: 'number', minimum: 0, exclusiveMinimum: true },
      value: 0,
      want: ['FieldValueInvalid v: Invalid value: 0: v in body should be greater than 0'],
    },
    { name: 'minimum met exactly', schema: { type: 'integer', minimum: 0 }, value: 0, want: [] },
    {
      name: 'pattern',
      schema: { type: 'string', pattern: '^[0-9]+(ms|s|m|h)$' },
      value: '10x',
      want: ['FieldValueInvalid v: Invalid value: "10x": v in body should match \'^[0-9]+(ms|s|m|h)$\''],
    },
    { name: 'pattern match', schema: { type: 'string', pattern: '^[0-9]+(ms|s|m|h)$' }, value: '10m', want: [] },
    { name: 'maxLength in code points', schema: { type: 'string', maxLength: 2 }, value: '😀😀', want: [] },
    {
      name: 'maxLength exceeded',
      schema: { type: 'string', maxLength: 2 },
      value: 'abc',
      want: ['FieldValueTooLong v: Too long: may not be longer than 2'],
    },
    {
      name: 'minLength',
      schema: { type: 'string', minLength: 1 },
      value: '',
      want: ['FieldValueInvalid v: Invalid value: "": v in body should be at least 1 chars long'],
    },
    {
      name: 'maxItems',
      schema: { type: 'array', maxItems: 1, items: { type: 'string' } },
      value: ['a', 'b'],
      want: ['FieldValueTooMany v: Too many: 2: must have at most 1 items'],
    },
    {
      name: 'minItems',
      schema: { type: 'array', minItems: 1, items: { type: 'string' } },
      value: [],
      want: ['FieldValueInvalid v: Invalid value: 0: v in body should have at least 1 items'],
    },
    {
      name: 'uniqueItems',
      schema: { type: 'array', uniqueItems: true },
      value: [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      want: ['FieldValueInvalid v: Invalid value: "": v in body shouldn\'t contain duplicates'],
    },
    {
      name: 'boolean type',
      schema: { type: 'boolean' },
      value: 'true',
      want: ['FieldValueTypeInvalid v: Invalid value: "string": v in body must be of type boolean: "string"'],
    },
    { name: 'int-or-string integer', schema: { 'x-kubernetes-int-or-string': true }, value: 3, want: [] },
    {
      name: 'int-or-string string',
      schema: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      value: '40%',
      want: [],
    },
    {
      name: 'int-or-string pattern on the string form',
      schema: { 'x-kubernetes-int-or-string': true, pattern: '^[0-9]+%$' },
      value: 'x',
      want: ['FieldValueInvalid v: Invalid value: "x": v in body should match \'^[0-9]+%$\''],
    },
    {
      name: 'int-or-string boolean',
      schema: { 'x-kubernetes-int-or-string': true },
      value: true,
      want: ['FieldValueTypeInvalid v: Invalid value: "boolean": v in body must be of type integer,string: "boolean"'],
    },
    {
      name: 'date-time format',
      schema: { type: 'string', format: 'date-time' },
      value: 'yesterday',
      want: ['FieldValueTypeInvalid v: Invalid value: "yesterday": v in body must be of type date-time: "yesterday"'],
    },
    {
      name: 'date-time format ok',
      schema: { type: 'string', format: 'date-time' },
      value: '2024-01-02T03:04:05Z',
      want: [],
    },
    { name: 'unknown format ignored', schema: { type: 'string', format: 'something' }, value: 'x', want: [] },
    { name: 'int64 format ok', schema: { type: 'integer', format: 'int64' }, value: 2 ** 40, want: [] },
    {
      name: 'anyOf none',
      schema: { anyOf: [{ minimum: 5 }, { maximum: 1 }] },
      value: 3,
      want: ['FieldValueInvalid v: Invalid value: 3: v in body must validate at least one schema (anyOf)'],
    },
    {
      name: 'oneOf two',
      schema: { oneOf: [{ minimum: 1 }, { maximum: 5 }] },
      value: 3,
      want: ['FieldValueInvalid v: Invalid value: 3: v in body must validate one and only one schema (oneOf)'],
    },
    {
      name: 'allOf',
      schema: { allOf: [{ minimum: 5 }] },
      value: 3,
      want: ['FieldValueInvalid v: Invalid value: 3: v in body should be greater than or equal to 5'],
    },
    {
      name: 'not',
      schema: { not: { type: 'string' } },
      value: 'x',
      want: ['FieldValueInvalid v: Invalid value: "x": v in body must not validate the schema (not)'],
    },
    {
      name: 'numeric enum',
      schema: { type: 'integer', enum: [1, 2] },
      value: 3,
      want: ['FieldValueNotSupported v: Unsupported value: 3: supported values: "1", "2"'],
    },
    {
      name: 'maxProperties',
      schema: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
      value: { a: 'x', b: 'y' },
      want: ['FieldValueTooMany v: Too many: 2: must have at most 1 items'],
    },
  ];
  for (const c of scalarCases) {
    it(`checks ${c.name}`, () => {
      expect(scalar(c.schema, c.value)).to.deep.equal(c.want);
    });
  }

  const formatCases: Array<[string, string, boolean]> = [
    ['date-time', '2024-01-02T03:04:05.123Z', true],
    ['date-time', '2024-01-02T03:04:05+02:00', true],
    ['date-time', '2024-01-02T03:04:05+0200', true],
    ['date-time', '2024-01-02T03:04', true],
    ['date-time', '2024-02-30T03:04:05Z', false],
    ['date-time', '2024-13-02T03:04:05Z', false],
    ['date-time', '2024-01-02', false],
    ['date', '2024-02-29', true],
    ['date', '2023-02-29', false],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', true],
    ['uuid', 'not-a-uuid', false],
    ['ipv4', '10.0.0.1', true],
    ['ipv4', '10.0.0.256', false],
    ['ipv6', 'fe80::1', true],
    ['ipv6', '::ffff:10.0.0.1', true],
    ['ipv6', '1::2::3', false],
    ['cidr', '10.0.0.0/16', true],
    ['cidr', 'fd00::/8', true],
    ['cidr', '10.0.0.0/33', false],
    ['byte', 'aGVsbG8=', true],
    ['byte', 'not base64!', false],
    ['hostname', 'ip-10-0-0-1.ec2.internal', true],
    ['hostname', '-bad-', false],
    ['mac', '00:1a:2b:3c:4d:5e', true],
  ];
  for (const [format, value, ok] of formatCases) {
    it(`${ok ? 'accepts' : 'rejects'} ${JSON.stringify(value)} as format ${format}`, () => {
      expect(scalar({ type: 'string', format }, value)).to.have.length(ok ? 0 : 1);
    });
  }

  it('checks x-kubernetes-list-type set for duplicates, at the later index', () => {
    const s: JSONSchemaProps = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
    expect(scalar(s, ['a', 'b', 'a'])).to.deep.equal(['FieldValueDuplicate v[2]: Duplicate value: "a"']);
  });

  it('checks x-kubernetes-list-type map for duplicate keys', () => {
    const s: JSONSchemaProps = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
    };
    expect(
      scalar(s, [{ type: 'Ready', status: 'True' }, { type: 'Drained' }, { type: 'Ready', status: 'False' }]),
    ).to.deep.equal(['FieldValueDuplicate v[2]: Duplicate value: map[string]interface {}{"type":"Ready"}']);
  });

  it('requires apiVersion and kind of an embedded resource', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        e: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(messages(apply({ e: { metadata: {} } }, schema).causes)).to.deep.equal([
      'FieldValueRequired e.apiVersion: Required value: must not be empty',
      'FieldValueRequired e.kind: Required value: must not be empty',
    ]);
  });

  it('validates declared properties under preserve-unknown-fields', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { n: { type: 'integer' } },
    };
    expect(messages(apply({ n: 'x', other: 'kept' }, schema).causes)).to.have.length(1);
  });

  describe('pattern, read as Go (RE2) syntax as kube-apiserver does', () => {
    it('accepts escapes RE2 allows and ECMAScript does not', () => {
      // "\-" outside a class is an identity escape ECMAScript allows only without the 'u' flag.
      expect(scalar({ type: 'string', pattern: '^a\\-b$' }, 'a-b')).to.deep.equal([]);
      // "\pL" is RE2's one-letter Unicode class; ECMAScript needs "\p{L}".
      expect(scalar({ type: 'string', pattern: '^\\pL+$' }, 'éa')).to.deep.equal([]);
      expect(scalar({ type: 'string', pattern: '^\\pL+$' }, 'a1')).to.have.length(1);
    });

    it('honours RE2 inline flags', () => {
      expect(scalar({ type: 'string', pattern: '^(?i)abc$' }, 'ABC')).to.deep.equal([]);
      expect(scalar({ type: 'string', pattern: '^(?i)abc$' }, 'abd')).to.have.length(1);
    });

    it('matches in linear time, so a pattern that makes a backtracking engine explode answers at once', () => {
      // A backtracking engine takes time doubling with every "a" here (well over a minute at this length).
      expect(scalar({ type: 'string', pattern: '^(a|a)*$' }, `${'a'.repeat(64)}!`)).to.have.length(1);
      expect(scalar({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(10_000))).to.deep.equal([]);
    });
  });
});
