// Structured merge over objects, driven by the schema's list and map types, with the cases
// kube-apiserver's server-side apply documents (list-type map merges by key, set by value, atomic
// replaces; fields the applier dropped go unless someone else owns them).
import { expect } from 'chai';
import { FieldSet } from '../../../../sim/apiserver/field-management/field-set.js';
import { rootSchema } from '../../../../sim/apiserver/field-management/shape.js';
import { compare, fieldSetOf, merge, removeFields } from '../../../../sim/apiserver/field-management/typed.js';
import type { JSONSchemaProps } from '../../../../sim/apiserver/schema/index.js';

const schema: JSONSchemaProps = rootSchema({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            properties: {
              port: { type: 'integer' },
              protocol: { type: 'string', default: 'TCP' },
              name: { type: 'string' },
            },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
      },
    },
  },
});

describe('structured merge (field-management/typed)', () => {
  describe('fieldSetOf: what an applied configuration owns', () => {
    it('owns leaves, every keyed list item (a default fills a missing key) and atomic values whole', () => {
      const set = fieldSetOf(
        {
          metadata: { name: 'a', labels: { app: 'x' } },
          spec: {
            replicas: 1,
            ports: [{ port: 80, name: 'http' }],
            tags: ['a'],
            args: ['x', 'y'],
            selector: { app: 'x' },
          },
        },
        schema,
      );
      expect(set.toFieldsV1()).to.deep.equal({
        'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {} },
        'f:spec': {
          'f:args': {},
          'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
          'f:replicas': {},
          'f:selector': {},
          'f:tags': { 'v:"a"': {} },
        },
      });
    });
  });

  describe('compare: what an update changed', () => {
    it('counts a new map and a new item as members themselves, and removes a whole subtree', () => {
      const { changed, removed } = compare(
        { spec: { replicas: 1, ports: [{ port: 80, protocol: 'TCP', name: 'a' }] } },
        { metadata: { labels: { app: 'x' } }, spec: { replicas: 2, ports: [{ port: 443, protocol: 'TCP' }] } },
        schema,
      );
      expect(changed.toFieldsV1()).to.deep.equal({
        'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:ports': { 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} } },
          'f:replicas': {},
        },
      });
      expect(removed.toFieldsV1()).to.deep.equal({
        'f:spec': {
          'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } },
        },
      });
    });

    it('finds nothing in equal objects, whatever their keyed lists order', () => {
      const a = {
        spec: {
          tags: ['a', 'b'],
          ports: [
            { port: 1, protocol: 'TCP' },
            { port: 2, protocol: 'UDP' },
          ],
        },
      };
      const b = {
        spec: {
          tags: ['b', 'a'],
          ports: [
            { port: 2, protocol: 'UDP' },
            { port: 1, protocol: 'TCP' },
          ],
        },
      };
      const { changed, removed } = compare(a, b, schema);
      expect(changed.isEmpty() && removed.isEmpty()).to.equal(true);
    });
  });

  describe('merge: the applied configuration over the live object', () => {
    it('merges map lists by key, sets by value, and replaces atomic lists and maps', () => {
      const live = {
        spec: {
          replicas: 3,
          ports: [
            { port: 80, protocol: 'TCP', name: 'http' },
            { port: 53, protocol: 'UDP' },
          ],
          tags: ['a'],
          args: ['x'],
          selector: { app: 'x', tier: 'web' },
        },
      };
      const out = merge(
        live,
        {
          spec: {
            ports: [
              { port: 80, protocol: 'TCP', name: 'web' },
              { port: 443, protocol: 'TCP' },
            ],
            tags: ['b'],
            args: ['y'],
            selector: { app: 'y' },
          },
        },
        schema,
      );
      expect(out).to.deep.equal({
        spec: {
          replicas: 3,
          ports: [
            { port: 80, protocol: 'TCP', name: 'web' },
            { port: 53, protocol: 'UDP' },
            { port: 443, protocol: 'TCP' },
          ],
          tags: ['a', 'b'],
          args: ['y'],
          selector: { app: 'y' },
        },
      });
      expect(live.spec.ports[0]?.name).to.equal('http');
    });
  });

  describe('removeFields: what the applier no longer applies', () => {
    it('removes unowned fields and items, keeps a parent while anything under it is owned', () => {
      const obj = {
        metadata: { labels: { app: 'x', keep: 'y' } },
        spec: {
          replicas: 1,
          ports: [
            { port: 80, protocol: 'TCP', name: 'a' },
            { port: 81, protocol: 'TCP' },
          ],
        },
      };
      const stale = FieldSet.fromPaths([
        ['f:metadata', 'f:labels', 'f:app'],
        ['f:spec', 'f:replicas'],
        ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'],
        ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name'],
        ['f:spec', 'f:ports', 'k:{"port":81,"protocol":"TCP"}'],
      ]);
      const owned = FieldSet.fromPaths([
        ['f:metadata', 'f:labels', 'f:keep'],
        ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:port'],
      ]);
      removeFields(obj, stale, owned, schema);
      expect(obj).to.deep.equal({
        metadata: { labels: { keep: 'y' } },
        spec: { ports: [{ port: 80, protocol: 'TCP' }] },
      });
    });
  });
});
