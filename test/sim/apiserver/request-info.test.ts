import { expect } from 'chai';
import { parseResourcePath } from '../../../sim/apiserver/request-info.js';

describe('envtest request paths', () => {
  it('parses core, group, namespaced and cluster-scoped paths with subresources', () => {
    expect(parseResourcePath('/api/v1/namespaces/ns/pods/p/eviction')).to.deep.equal({
      group: '',
      version: 'v1',
      namespace: 'ns',
      resource: 'pods',
      name: 'p',
      subresource: 'eviction',
    });
    expect(parseResourcePath('/apis/machine.openshift.io/v1beta1/machines')).to.deep.equal({
      group: 'machine.openshift.io',
      version: 'v1beta1',
      namespace: '',
      resource: 'machines',
      name: undefined,
      subresource: undefined,
    });
    expect(parseResourcePath('/api/v1/nodes/n1/status')).to.include({
      resource: 'nodes',
      name: 'n1',
      subresource: 'status',
    });
  });

  it('treats namespaces/<name>[/status|/finalize] as the namespace itself', () => {
    expect(parseResourcePath('/api/v1/namespaces/x')).to.include({ resource: 'namespaces', name: 'x', namespace: '' });
    expect(parseResourcePath('/api/v1/namespaces/x/finalize')).to.include({
      resource: 'namespaces',
      name: 'x',
      subresource: 'finalize',
    });
    expect(parseResourcePath('/api/v1/namespaces/x/configmaps')).to.include({ resource: 'configmaps', namespace: 'x' });
  });

  it('rejects paths that are not resources', () => {
    expect(parseResourcePath('/version')).to.equal(undefined);
    expect(parseResourcePath('/apis/g/v/a/b/c/d')).to.equal(undefined);
  });
});
