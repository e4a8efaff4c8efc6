// Built-in kinds merge under server-side apply by the same keys their strategic merge patches use.
import { expect } from 'chai';
import { builtinMergeSchema } from '../../../../sim/apiserver/field-management/builtin-schema.js';
import { rootSchema } from '../../../../sim/apiserver/field-management/shape.js';
import { fieldSetOf, merge } from '../../../../sim/apiserver/field-management/typed.js';

describe('builtinMergeSchema (built-in kinds for structured merge)', () => {
  it("merges a Pod's containers by name and their env by name; owns each container as a keyed item", () => {
    const schema = rootSchema(builtinMergeSchema('Pod'));
    const live = {
      spec: {
        containers: [
          { name: 'app', image: 'a:1', env: [{ name: 'X', value: '1' }] },
          { name: 'sidecar', image: 's:1' },
        ],
      },
    };
    const out = merge(
      live,
      { spec: { containers: [{ name: 'app', image: 'a:2', env: [{ name: 'Y', value: '2' }] }] } },
      schema,
    );
    expect(out).to.deep.equal({
      spec: {
        containers: [
          {
            name: 'app',
            image: 'a:2',
            env: [
              { name: 'X', value: '1' },
              { name: 'Y', value: '2' },
            ],
          },
          { name: 'sidecar', image: 's:1' },
        ],
      },
    });
    expect(fieldSetOf({ spec: { containers: [{ name: 'app', image: 'a:2' }] } }, schema).toFieldsV1()).to.deep.equal({
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
  });

  it("merges a Node's status conditions by type, and leaves kinds without merged lists to deduction", () => {
    const node = rootSchema(builtinMergeSchema('Node'));
    const out = merge(
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'DiskPressure', status: 'False' },
          ],
        },
      },
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      node,
    );
    expect(out).to.deep.equal({
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'DiskPressure', status: 'False' },
        ],
      },
    });
    const cm = rootSchema(builtinMergeSchema('ConfigMap'));
    expect(merge({ data: { a: '1' } }, { data: { b: '2' } }, cm)).to.deep.equal({ data: { a: '1', b: '2' } });
  });
});
