import { expect } from 'chai';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { ConfigMaps, Machines, Nodes, type Resource } from '../../../lib/client/resources.js';
import { cacheTransform, withoutManagedFields } from '../../../lib/runtime/cache-transform.js';

const managedFields = [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
const keep = (resource: Resource, obj: object) =>
  cacheTransform(resource)(obj as KubeObject) as unknown as Record<string, unknown>;

describe('cacheTransform', () => {
  it('drops metadata.managedFields and keeps the rest of the metadata, without changing its input', () => {
    const machine = {
      kind: 'Machine',
      metadata: { name: 'a', namespace: 'ns', labels: { x: 'y' }, managedFields },
      spec: { providerID: 'aws:///i-1' },
    };
    expect(keep(Machines, machine)).to.deep.equal({
      kind: 'Machine',
      metadata: { name: 'a', namespace: 'ns', labels: { x: 'y' } },
      spec: { providerID: 'aws:///i-1' },
    });
    expect(machine.metadata.managedFields).to.equal(managedFields);
  });

  it('hands back the object itself when there is nothing to drop', () => {
    const cm = { kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
    expect(keep(ConfigMaps, cm)).to.equal(cm);
    expect(withoutManagedFields(cm as KubeObject)).to.equal(cm);
    const node = { kind: 'Node', metadata: { name: 'n' }, status: { conditions: [] } };
    expect(keep(Nodes, node)).to.equal(node);
  });

  it("drops a Node's status.images and keeps the rest of its status", () => {
    const node = {
      kind: 'Node',
      metadata: { name: 'n', managedFields },
      status: { images: [{ names: ['a'], sizeBytes: 1 }], nodeInfo: { kubeletVersion: 'v1.31.0' } },
    };
    expect(keep(Nodes, node)).to.deep.equal({
      kind: 'Node',
      metadata: { name: 'n' },
      status: { nodeInfo: { kubeletVersion: 'v1.31.0' } },
    });
    expect(node.status.images).to.have.length(1);
  });

  it('keeps a status.images of any other kind', () => {
    const other = { kind: 'Machine', metadata: { name: 'a' }, status: { images: ['kept'] } };
    expect(keep(Machines, other)).to.equal(other);
  });
});
