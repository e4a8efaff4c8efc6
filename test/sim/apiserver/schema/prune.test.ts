import { expect } from 'chai';
import type { JSONSchemaProps } from '../../../../sim/apiserver/schema/index.js';
import { apply, valid } from './fixtures.js';

describe('applySchema: pruning', () => {
  it('keeps a valid object as it is, without causes', () => {
    const r = apply(valid);
    expect(r.causes).to.deep.equal([]);
    expect(r.object).to.deep.equal(valid);
  });

  it('drops fields the schema does not declare, at any depth', () => {
    const r = apply({
      ...valid,
      bogus: 1,
      spec: { ...valid.spec, extra: true, selector: { matchLabels: {}, junk: 'x' } },
    });
    expect(r.object).to.deep.equal({ ...valid, spec: { replicas: 2, selector: { matchLabels: {} } } });
    expect(r.causes).to.deep.equal([]);
  });

  it('keeps apiVersion, kind and the whole of metadata at the root even when undeclared', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object' } } };
    const obj = {
      apiVersion: 'v1',
      kind: 'K',
      metadata: { name: 'x', annotations: { k: 'v' } },
      spec: { a: 1 },
      other: 1,
    };
    expect(apply(obj, schema).object).to.deep.equal({
      apiVersion: 'v1',
      kind: 'K',
      metadata: { name: 'x', annotations: { k: 'v' } },
      spec: {},
    });
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but still prunes declared children', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
    };
    const r = apply({ anything: { deep: [1, { x: 2 }] }, known: { a: 'y', b: 'z' } }, schema);
    expect(r.object).to.deep.equal({ anything: { deep: [1, { x: 2 }] }, known: { a: 'y' } });
  });

  it('keeps a providerSpec value whole because it preserves unknown fields', () => {
    const providerSpec = {
      value: { apiVersion: 'awsprovider/v1', instanceType: 'm5.large', tags: [{ name: 'a', value: 'b' }] },
    };
    const obj = { ...valid, spec: { ...valid.spec, template: { spec: { providerSpec } } } };
    const r = apply(obj);
    expect((r.object as typeof obj).spec.template.spec.providerSpec).to.deep.equal(providerSpec);
  });

  it('keeps apiVersion, kind and metadata of an x-kubernetes-embedded-resource', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    };
    const obj = {
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x', b: 'y' }, junk: 1 },
    };
    const r = apply(obj, schema);
    expect(r.object).to.deep.equal({
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x' } },
    });
    expect(r.causes).to.deep.equal([]);
  });

  it('prunes inside array items and additionalProperties values', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { b: { type: 'integer' } } } },
      },
    };
    const r = apply({ list: [{ a: 'x', z: 1 }], map: { k: { b: 1, z: 2 } } }, schema);
    expect(r.object).to.deep.equal({ list: [{ a: 'x' }], map: { k: { b: 1 } } });
  });

  it('does not modify the object it is given', () => {
    const input = { ...valid, extra: 1, spec: { selector: {} } };
    const before = structuredClone(input);
    apply(input);
    expect(input).to.deep.equal(before);
  });
});
