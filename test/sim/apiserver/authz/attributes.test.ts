// What a request is authorized as (kube's RequestInfo), and kube's wording of the 403.
import { expect } from 'chai';
import { forbidden, requestAttributes } from '../../../../sim/apiserver/authz/attributes.js';

const q = (s = '') => new URLSearchParams(s);
const sa = { username: 'system:serviceaccount:openshift-machine-api:machine-api-controllers', groups: [] };

describe('request attributes for authorization', () => {
  it('takes the verb from the method and whether an object is named', () => {
    expect(requestAttributes('GET', '/api/v1/namespaces/ns/pods', q(), false)).to.include({
      verb: 'list',
      resource: 'pods',
      namespace: 'ns',
      name: '',
    });
    expect(requestAttributes('GET', '/api/v1/namespaces/ns/pods', q(), true)).to.include({ verb: 'watch' });
    expect(requestAttributes('GET', '/api/v1/namespaces/ns/pods/p', q(), false)).to.include({ verb: 'get', name: 'p' });
    expect(requestAttributes('DELETE', '/api/v1/namespaces/ns/pods', q(), false)).to.include({
      verb: 'deletecollection',
    });
    expect(requestAttributes('POST', '/api/v1/namespaces/ns/pods/p/eviction', q(), false)).to.include({
      verb: 'create',
      subresource: 'eviction',
    });
    expect(
      requestAttributes('PATCH', '/apis/machine.openshift.io/v1beta1/namespaces/ns/machines/m/status', q(), false),
    ).to.include({
      verb: 'patch',
      group: 'machine.openshift.io',
      resource: 'machines',
      subresource: 'status',
      name: 'm',
    });
  });

  it('names the object a list or watch selects with metadata.name=<x>', () => {
    expect(
      requestAttributes('GET', '/api/v1/namespaces/ns/secrets', q('fieldSelector=metadata.name%3Dcreds'), true),
    ).to.include({ verb: 'watch', name: 'creds' });
    expect(
      requestAttributes(
        'GET',
        '/api/v1/namespaces/ns/secrets',
        q('fieldSelector=type%3Dx,metadata.name%3D%3Dcreds'),
        false,
      ),
    ).to.include({ name: 'creds' });
    expect(
      requestAttributes('GET', '/api/v1/namespaces/ns/secrets', q('fieldSelector=metadata.name!%3Dcreds'), false),
    ).to.include({ name: '' });
  });

  it('puts a namespace in its own namespace', () => {
    expect(requestAttributes('GET', '/api/v1/namespaces/ns', q(), false)).to.include({
      resource: 'namespaces',
      name: 'ns',
      namespace: 'ns',
    });
    expect(requestAttributes('GET', '/api/v1/namespaces', q(), false)).to.include({
      resource: 'namespaces',
      name: '',
      namespace: '',
    });
  });

  it('treats discovery and every other URL as a non-resource path with the lower-case method as verb', () => {
    expect(requestAttributes('GET', '/apis/machine.openshift.io/v1beta1', q(), false)).to.deep.equal({
      resourceRequest: false,
      verb: 'get',
      path: '/apis/machine.openshift.io/v1beta1',
    });
    expect(requestAttributes('GET', '/healthz', q(), false)).to.deep.equal({
      resourceRequest: false,
      verb: 'get',
      path: '/healthz',
    });
  });

  it('words the 403 as kube-apiserver does, for namespaced, cluster-scoped, unnamed and non-resource requests', () => {
    const named = forbidden(
      {
        ...requestAttributes(
          'PATCH',
          '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines/m1/status',
          q(),
          false,
        ),
        user: sa,
      },
      '',
    );
    expect(named.code).to.equal(403);
    expect(named.reason).to.equal('Forbidden');
    expect(named.message).to.equal(
      'machines.machine.openshift.io "m1" is forbidden: User "system:serviceaccount:openshift-machine-api:machine-api-controllers" cannot patch resource "machines/status" in API group "machine.openshift.io" in the namespace "openshift-machine-api"',
    );
    expect(named.details).to.deep.include({ name: 'm1', group: 'machine.openshift.io', kind: 'machines' });
    const list = forbidden(
      { ...requestAttributes('GET', '/api/v1/nodes', q(), false), user: sa },
      'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
    expect(list.message).to.equal(
      'nodes is forbidden: User "system:serviceaccount:openshift-machine-api:machine-api-controllers" cannot list resource "nodes" in API group "" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
    expect(forbidden({ ...requestAttributes('GET', '/metrics', q(), false), user: sa }, '').message).to.equal(
      'forbidden: User "system:serviceaccount:openshift-machine-api:machine-api-controllers" cannot get path "/metrics"',
    );
  });
});
