// x-kubernetes-validations through applySchema, worded as kube-apiserver words a broken rule: the node's path (or
// the rule's fieldPath), the node's schema type as the value, the rule's message, its reason as the cause type.
import { expect } from 'chai';
import { applySchema, type JSONSchemaProps } from '../../../../../sim/apiserver/schema/index.js';

const migratingRule = {
  rule: "self == 'Migrating' || self == oldSelf || oldSelf == 'Migrating'",
  message:
    'The authoritativeAPI field must not transition directly from MachineAPI to ClusterAPI or vice versa. It must transition through Migrating.',
};

const statusSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    status: {
      type: 'object',
      properties: {
        authoritativeAPI: {
          type: 'string',
          enum: ['MachineAPI', 'ClusterAPI', 'Migrating'],
          'x-kubernetes-validations': [migratingRule],
        },
        synchronizedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
      },
      'x-kubernetes-validations': [
        {
          fieldPath: '.synchronizedGeneration',
          message:
            'synchronizedGeneration must not decrease unless authoritativeAPI is transitioning from Migrating to another value',
          reason: 'FieldValueInvalid',
          rule: "!has(oldSelf.synchronizedGeneration) || (has(self.synchronizedGeneration) && self.synchronizedGeneration >= oldSelf.synchronizedGeneration) || (oldSelf.authoritativeAPI == 'Migrating' && self.authoritativeAPI != 'Migrating')",
        },
        {
          message: 'authoritativeAPI may not be removed once set',
          rule: 'has(self.authoritativeAPI) || !has(oldSelf.authoritativeAPI)',
        },
      ],
    },
  },
};

const status = (s: Record<string, unknown>) => ({ status: s });
const causesOf = (obj: unknown, schema: JSONSchemaProps, old?: unknown) => applySchema(obj, schema, old).causes;

describe('x-kubernetes-validations (CEL) in the schema layer', () => {
  describe('transition rules (reading oldSelf) run only on an update', () => {
    it('lets a create set any value', () => {
      expect(
        causesOf(status({ authoritativeAPI: 'ClusterAPI', synchronizedGeneration: 0 }), statusSchema),
      ).to.deep.equal([]);
    });

    it('refuses MachineAPI -> ClusterAPI directly, with the rule message on the field and the type as the value', () => {
      expect(
        causesOf(status({ authoritativeAPI: 'ClusterAPI' }), statusSchema, status({ authoritativeAPI: 'MachineAPI' })),
      ).to.deep.equal([
        {
          type: 'FieldValueInvalid',
          field: 'status.authoritativeAPI',
          message: `Invalid value: "string": ${migratingRule.message}`,
        },
      ]);
    });

    it('lets MachineAPI -> Migrating -> ClusterAPI through', () => {
      expect(
        causesOf(status({ authoritativeAPI: 'Migrating' }), statusSchema, status({ authoritativeAPI: 'MachineAPI' })),
      ).to.deep.equal([]);
      expect(
        causesOf(status({ authoritativeAPI: 'ClusterAPI' }), statusSchema, status({ authoritativeAPI: 'Migrating' })),
      ).to.deep.equal([]);
    });

    it('refuses a decreasing synchronizedGeneration at the rule fieldPath, unless leaving Migrating', () => {
      const old = status({ authoritativeAPI: 'MachineAPI', synchronizedGeneration: 5 });
      expect(
        causesOf(status({ authoritativeAPI: 'MachineAPI', synchronizedGeneration: 4 }), statusSchema, old),
      ).to.deep.equal([
        {
          type: 'FieldValueInvalid',
          field: 'status.synchronizedGeneration',
          message:
            'Invalid value: "object": synchronizedGeneration must not decrease unless authoritativeAPI is transitioning from Migrating to another value',
        },
      ]);
      expect(
        causesOf(status({ authoritativeAPI: 'MachineAPI', synchronizedGeneration: 6 }), statusSchema, old),
      ).to.deep.equal([]);
      const migrating = status({ authoritativeAPI: 'Migrating', synchronizedGeneration: 5 });
      expect(
        causesOf(status({ authoritativeAPI: 'ClusterAPI', synchronizedGeneration: 1 }), statusSchema, migrating),
      ).to.deep.equal([]);
    });

    it('refuses removing authoritativeAPI once set, at the node that holds the rule', () => {
      expect(causesOf(status({}), statusSchema, status({ authoritativeAPI: 'MachineAPI' }))).to.deep.equal([
        {
          type: 'FieldValueInvalid',
          field: 'status',
          message: 'Invalid value: "object": authoritativeAPI may not be removed once set',
        },
      ]);
    });

    it('does not judge a value again when it is unchanged (ratcheting)', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 10' }] } },
      };
      expect(causesOf({ n: 12 }, schema, { n: 12 })).to.deep.equal([]);
      expect(causesOf({ n: 13 }, schema, { n: 12 })[0]?.message).to.equal(
        'Invalid value: "integer": failed rule: self < 10',
      );
    });
  });

  describe('items and map values', () => {
    const listSchema = (listType?: string): JSONSchemaProps => ({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          ...(listType ? { 'x-kubernetes-list-type': listType } : {}),
          ...(listType === 'map' ? { 'x-kubernetes-list-map-keys': ['name'] } : {}),
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, v: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.v >= oldSelf.v', message: 'v may not decrease' }],
          },
        },
      },
    });

    it('correlates list-type map items by key, so a transition rule runs at the moved item', () => {
      const causes = causesOf(
        {
          items: [
            { name: 'b', v: 0 },
            { name: 'a', v: 1 },
          ],
        },
        listSchema('map'),
        {
          items: [
            { name: 'a', v: 1 },
            { name: 'b', v: 2 },
          ],
        },
      );
      expect(causes).to.deep.equal([
        { type: 'FieldValueInvalid', field: 'items[0]', message: 'Invalid value: "object": v may not decrease' },
      ]);
    });

    it('gives items of an atomic list no old value, so transition rules do not run there', () => {
      expect(causesOf({ items: [{ name: 'a', v: 0 }] }, listSchema(), { items: [{ name: 'a', v: 5 }] })).to.deep.equal(
        [],
      );
    });

    it('checks every additionalProperties value by key', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.startsWith('x-')" }] },
      };
      expect(causesOf({ a: 'x-1', b: 'y' }, schema).map((c) => c.field)).to.deep.equal(['b']);
    });
  });

  describe('messages and reasons', () => {
    const one = (rule: Record<string, string>): JSONSchemaProps => ({
      type: 'object',
      properties: { s: { type: 'string', 'x-kubernetes-validations': [rule as { rule: string }] } },
    });

    it('uses messageExpression when it gives a one-line string, and the static message when it fails', () => {
      expect(
        causesOf({ s: 'ab' }, one({ rule: 'self.size() < 2', messageExpression: "'too long: ' + self" }))[0]?.message,
      ).to.equal('Invalid value: "string": too long: ab');
      expect(
        causesOf(
          { s: 'ab' },
          one({ rule: 'self.size() < 2', message: 'short please', messageExpression: 'self.nope' }),
        )[0]?.message,
      ).to.equal('Invalid value: "string": short please');
    });

    it('falls back to the static message when the messageExpression would cost too much', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: {
          xs: {
            type: 'array',
            items: { type: 'integer' },
            'x-kubernetes-validations': [
              {
                rule: 'self.size() < 3',
                message: 'at most two',
                messageExpression: "self.map(a, self.map(b, a + b)).size() > 0 ? 'costly' : 'costly'",
              },
            ],
          },
        },
      };
      const many = Array.from({ length: 2000 }, (_, i) => i);
      expect(causesOf({ xs: many }, schema)[0]?.message).to.equal('Invalid value: "array": at most two');
      expect(causesOf({ xs: [1, 2, 3] }, schema)[0]?.message).to.equal('Invalid value: "array": costly');
    });

    it('maps reason FieldValueForbidden and FieldValueRequired to those causes', () => {
      expect(causesOf({ s: 'a' }, one({ rule: 'false', message: 'no', reason: 'FieldValueForbidden' }))).to.deep.equal([
        { type: 'FieldValueForbidden', field: 's', message: 'Forbidden: no' },
      ]);
      expect(causesOf({ s: 'a' }, one({ rule: 'false', message: 'need', reason: 'FieldValueRequired' }))).to.deep.equal(
        [{ type: 'FieldValueRequired', field: 's', message: 'Required value: need' }],
      );
    });

    it('reports an evaluation error with the rule, and a rule that does not compile', () => {
      expect(causesOf({ s: 'a' }, one({ rule: 'self.x == 1' }))[0]?.message).to.match(
        /^Invalid value: "string": .+ evaluating rule: failed rule: self\.x == 1$/,
      );
      expect(causesOf({ s: 'a' }, one({ rule: 'self ==' }))[0]?.message).to.match(
        /^Invalid value: "string": compilation failed: /,
      );
    });

    it('does not run the rules when the structural checks already failed, as kube-apiserver does', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: { s: { type: 'string', enum: ['a'], 'x-kubernetes-validations': [{ rule: 'false' }] } },
      };
      const causes = causesOf({ s: 'b' }, schema);
      expect(causes.map((c) => c.type)).to.deep.equal(['FieldValueNotSupported', 'FieldValueInvalid']);
      expect(causes[1]?.field).to.equal('<nil>');
      expect(causes[1]?.message).to.equal(
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      );
    });
  });

  describe('hostile input cannot stall the server', () => {
    it('answers matches() with RE2: a backtracking pattern over a long string returns at once', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^(a+)+$')" }] } },
      };
      expect(causesOf({ s: 'a'.repeat(100_000) + 'b' }, schema)).to.have.length(1);
      expect(causesOf({ s: 'aaaa' }, schema)).to.deep.equal([]);
    });

    it('refuses to run nested comprehensions over a large list, with kube-apiserver cost error, and runs no further rule', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: {
          xs: {
            type: 'array',
            items: { type: 'integer' },
            'x-kubernetes-validations': [
              { rule: 'self.all(a, self.all(b, a + b >= 0))' },
              { rule: 'false', message: 'never reached' },
            ],
          },
        },
      };
      const causes = causesOf({ xs: Array.from({ length: 2000 }, (_, i) => i) }, schema);
      expect(causes).to.deep.equal([
        {
          type: 'FieldValueInvalid',
          field: 'xs',
          message:
            'Invalid value: "array": \'operation cancelled: actual cost limit exceeded\': no further validation rules will be run due to call cost exceeds limit for rule: failed rule: self.all(a, self.all(b, a + b >= 0))',
        },
      ]);
      // The same rule over a short list is cheap and runs.
      expect(causesOf({ xs: [1, 2, 3] }, schema).map((c) => c.message)).to.deep.equal([
        'Invalid value: "array": never reached',
      ]);
    });

    it('bounds comprehensions over lists written in the rule too, whatever the data', () => {
      const list = `[${Array.from({ length: 200 }, (_, i) => i).join(', ')}]`;
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: {
          s: {
            type: 'string',
            'x-kubernetes-validations': [{ rule: `${list}.all(a, ${list}.all(b, ${list}.all(c, a + b + c >= 0)))` }],
          },
        },
      };
      expect(causesOf({ s: 'x' }, schema)[0]?.message).to.match(/actual cost limit exceeded/);
    });

    it('stops once the request budget is spent, as kube-apiserver does', () => {
      const schema: JSONSchemaProps = {
        type: 'array',
        items: {
          type: 'array',
          items: { type: 'integer' },
          'x-kubernetes-validations': [{ rule: 'self.all(a, self.exists(b, a == b))' }],
        },
      };
      // Each item's bound, 9 nodes × (21 values + 9 + 1)³ = 268,119, is under the per-call limit; the 38th passes the budget.
      const row = Array.from({ length: 20 }, (_, i) => i);
      const causes = causesOf(
        Array.from({ length: 200 }, () => row),
        schema,
      );
      expect(causes.map((c) => `${c.field}: ${c.message}`)).to.deep.equal([
        '[37]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
      ]);
    });
  });
});
