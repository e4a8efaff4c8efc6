// The field-set algebra behind managedFields, with FieldsV1 values as kube-apiserver writes them.
import { expect } from 'chai';
import { FieldSet, FieldsV1Error, pathString } from '../../../../sim/apiserver/field-management/field-set.js';

describe('FieldSet (structured-merge-diff sets in FieldsV1 form)', () => {
  const deployment = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:template': {
        'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
  };

  it('reads and writes FieldsV1 unchanged: "." marks a node that is a member as well as a parent', () => {
    const s = FieldSet.fromFieldsV1(deployment);
    expect(s.toFieldsV1()).to.deep.equal(deployment);
    expect(s.has(['f:metadata', 'f:labels'])).to.equal(true);
    expect(s.has(['f:metadata'])).to.equal(false);
    expect(s.has(['f:spec', 'f:replicas'])).to.equal(true);
    expect(s.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}'])).to.equal(true);
  });

  it('union, difference and intersection work member by member, not on whole subtrees', () => {
    const a = FieldSet.fromPaths([
      ['f:spec', 'f:replicas'],
      ['f:spec', 'f:paused'],
      ['f:metadata', 'f:labels'],
      ['f:metadata', 'f:labels', 'f:app'],
    ]);
    const b = FieldSet.fromPaths([
      ['f:spec', 'f:replicas'],
      ['f:metadata', 'f:labels'],
    ]);
    expect(a.difference(b).toFieldsV1()).to.deep.equal({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:paused': {} },
    });
    expect(a.intersection(b).toFieldsV1()).to.deep.equal({
      'f:metadata': { 'f:labels': {} },
      'f:spec': { 'f:replicas': {} },
    });
    expect(b.union(FieldSet.fromPaths([['f:data', 'f:k']])).paths().length).to.equal(3);
    expect(a.difference(a).isEmpty()).to.equal(true);
  });

  it('lists paths parents first and prints them as kube does in conflicts', () => {
    const s = FieldSet.fromPaths([
      ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'],
      ['f:spec', 'f:replicas'],
      ['f:metadata', 'f:finalizers', 'v:"a"'],
      ['f:spec', 'f:list', 'i:2'],
    ]);
    expect(s.paths().map(pathString)).to.deep.equal([
      '.metadata.finalizers[="a"]',
      '.spec.list[2]',
      '.spec.ports[port=80,protocol="TCP"]',
      '.spec.replicas',
    ]);
  });

  it('rejects what is not FieldsV1, naming where', () => {
    expect(() => FieldSet.fromFieldsV1({ 'f:spec': { replicas: {} } })).to.throw(FieldsV1Error, 'f:spec.replicas');
    expect(() => FieldSet.fromFieldsV1([])).to.throw(FieldsV1Error);
  });
});
