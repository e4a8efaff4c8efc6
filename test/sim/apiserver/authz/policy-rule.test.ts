// One PolicyRule against one request: kube's matching of verbs, groups, resources, subresources,
// resourceNames and nonResourceURLs.
import { expect } from 'chai';
import type { RequestAttributes } from '../../../../sim/apiserver/authz/attributes.js';
import { ruleAllows } from '../../../../sim/apiserver/authz/policy-rule.js';

const req = (
  verb: string,
  group: string,
  resource: string,
  o: { subresource?: string; name?: string; namespace?: string } = {},
): RequestAttributes => ({
  resourceRequest: true,
  verb,
  group,
  resource,
  namespace: o.namespace ?? 'ns',
  name: o.name ?? '',
  ...(o.subresource ? { subresource: o.subresource } : {}),
});
const path = (verb: string, p: string): RequestAttributes => ({ resourceRequest: false, verb, path: p });

describe('RBAC PolicyRule matching', () => {
  it('needs the verb, the API group and the resource all listed', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: ['machine.openshift.io'], resources: ['machines'] };
    expect(ruleAllows(rule, req('get', 'machine.openshift.io', 'machines'))).to.equal(true);
    expect(ruleAllows(rule, req('delete', 'machine.openshift.io', 'machines'))).to.equal(false);
    expect(ruleAllows(rule, req('get', '', 'machines'))).to.equal(false);
    expect(ruleAllows(rule, req('get', 'machine.openshift.io', 'machinesets'))).to.equal(false);
  });

  it('matches anything with * in verbs, apiGroups or resources', () => {
    expect(
      ruleAllows({ verbs: ['*'], apiGroups: [''], resources: ['pods'] }, req('deletecollection', '', 'pods')),
    ).to.equal(true);
    expect(
      ruleAllows(
        { verbs: ['get'], apiGroups: ['*'], resources: ['leases'] },
        req('get', 'coordination.k8s.io', 'leases'),
      ),
    ).to.equal(true);
    expect(
      ruleAllows({ verbs: ['get'], apiGroups: [''], resources: ['*'] }, req('get', '', 'pods', { subresource: 'log' })),
    ).to.equal(true);
  });

  it('treats a subresource as its own resource: machines does not allow machines/status', () => {
    expect(
      ruleAllows(
        { verbs: ['patch'], apiGroups: ['machine.openshift.io'], resources: ['machines'] },
        req('patch', 'machine.openshift.io', 'machines', { subresource: 'status' }),
      ),
    ).to.equal(false);
    expect(
      ruleAllows(
        { verbs: ['patch'], apiGroups: ['machine.openshift.io'], resources: ['machines/status'] },
        req('patch', 'machine.openshift.io', 'machines', { subresource: 'status' }),
      ),
    ).to.equal(true);
    expect(
      ruleAllows(
        { verbs: ['patch'], apiGroups: ['machine.openshift.io'], resources: ['machines/status'] },
        req('patch', 'machine.openshift.io', 'machines'),
      ),
    ).to.equal(false);
  });

  it('matches */<subresource> for that subresource of any resource, and nothing else', () => {
    const rule = { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] };
    expect(ruleAllows(rule, req('update', 'machine.openshift.io', 'machinesets', { subresource: 'scale' }))).to.equal(
      true,
    );
    expect(ruleAllows(rule, req('update', 'machine.openshift.io', 'machinesets'))).to.equal(false);
    expect(ruleAllows(rule, req('update', 'machine.openshift.io', 'machinesets', { subresource: 'status' }))).to.equal(
      false,
    );
  });

  it('limits a rule with resourceNames to those objects, so it never allows create or an unnamed list', () => {
    const rule = {
      verbs: ['get', 'list', 'create'],
      apiGroups: [''],
      resources: ['secrets'],
      resourceNames: ['aws-cloud-credentials'],
    };
    expect(ruleAllows(rule, req('get', '', 'secrets', { name: 'aws-cloud-credentials' }))).to.equal(true);
    expect(ruleAllows(rule, req('get', '', 'secrets', { name: 'other' }))).to.equal(false);
    expect(ruleAllows(rule, req('list', '', 'secrets'))).to.equal(false);
    expect(ruleAllows(rule, req('create', '', 'secrets'))).to.equal(false);
  });

  it('matches nonResourceURLs exactly or, ending in *, by prefix; resource rules never match a path', () => {
    const rule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    expect(ruleAllows(rule, path('get', '/healthz'))).to.equal(true);
    expect(ruleAllows(rule, path('get', '/healthz/etcd'))).to.equal(false);
    expect(ruleAllows(rule, path('get', '/apis/machine.openshift.io/v1beta1'))).to.equal(true);
    expect(ruleAllows(rule, path('post', '/healthz'))).to.equal(false);
    expect(ruleAllows({ verbs: ['*'], nonResourceURLs: ['*'] }, path('get', '/version'))).to.equal(true);
    expect(ruleAllows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, path('get', '/version'))).to.equal(false);
    expect(ruleAllows(rule, req('get', '', 'healthz'))).to.equal(false);
  });
});
