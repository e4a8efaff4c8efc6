import { expect } from 'chai';
import type { JSONSchemaProps } from '../../../../sim/apiserver/schema/index.js';
import { apply, messages, valid } from './fixtures.js';

describe('applySchema: defaulting', () => {
  it('fills a missing property with its default', () => {
    const r = apply({ ...valid, spec: { selector: {} } });
    expect((r.object as { spec: { replicas: number } }).spec.replicas).to.equal(1);
  });

  it('replaces a null non-nullable property that has a default', () => {
    const r = apply({ ...valid, spec: { selector: {}, replicas: null } });
    expect((r.object as { spec: { replicas: number } }).spec.replicas).to.equal(1);
    expect(r.causes).to.deep.equal([]);
  });

  it('drops a null non-nullable property without a default, as if it was never sent', () => {
    const r = apply({ ...valid, spec: { selector: {}, deletePolicy: null } });
    expect(r.object).to.deep.equal({ ...valid, spec: { selector: {}, replicas: 1 } });
    expect(r.causes).to.deep.equal([]);
  });

  it('keeps null where the schema is nullable', () => {
    const r = apply({ ...valid, status: { errorMessage: null } });
    expect((r.object as { status: unknown }).status).to.deep.equal({ errorMessage: null });
    expect(r.causes).to.deep.equal([]);
  });

  it('reports a dropped null of a required field as Required', () => {
    const r = apply({ ...valid, spec: { selector: null } });
    expect(messages(r.causes)).to.deep.equal(['FieldValueRequired spec.selector: Required value']);
  });

  it('applies defaults inside defaults, array items and additionalProperties values', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        outer: { type: 'object', default: {}, properties: { inner: { type: 'string', default: 'x' } } },
        list: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', default: 5 } } } },
        map: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } },
        },
      },
    };
    const r = apply({ list: [{}, { n: 1 }], map: { a: {} } }, schema);
    expect(r.object).to.deep.equal({ outer: { inner: 'x' }, list: [{ n: 5 }, { n: 1 }], map: { a: { on: true } } });
  });

  it('gives each object its own copy of a default', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, default: ['a'] } } },
        },
      },
    };
    const r = apply({ list: [{}, {}] }, schema).object as { list: Array<{ tags: string[] }> };
    r.list[0]!.tags.push('b');
    expect(r.list[1]!.tags).to.deep.equal(['a']);
  });

  it('applies defaults after pruning, so an unknown field cannot hide a default', () => {
    const r = apply({ ...valid, spec: { selector: {}, Replicas: 3 } });
    expect((r.object as { spec: unknown }).spec).to.deep.equal({ selector: {}, replicas: 1 });
  });
});
