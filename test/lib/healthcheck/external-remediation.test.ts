import { expect } from 'chai';
import type { Machine } from '../../../lib/apis/machine-types.js';
import {
  RemediationTemplateError,
  buildRemediationRequest,
  groupKindString,
  guessPlural,
  guessResource,
  requestKindFor,
} from '../../../lib/healthcheck/external-remediation.js';

describe('external remediation requests', () => {
  it('guess the REST plural as apimachinery does', () => {
    expect(guessPlural('Metal3RemediationTemplate')).to.equal('metal3remediationtemplates');
    expect(guessPlural('Ingress')).to.equal('ingresses');
    expect(guessPlural('Policy')).to.equal('policies');
    expect(guessResource('infrastructure.cluster.x-k8s.io/v1beta1', 'Metal3Remediation')).to.deep.include({
      group: 'infrastructure.cluster.x-k8s.io',
      version: 'v1beta1',
      plural: 'metal3remediations',
      kind: 'Metal3Remediation',
      namespaced: true,
    });
  });

  it('name the request kind after the template kind without "Template"', () => {
    expect(requestKindFor('Metal3RemediationTemplate')).to.equal('Metal3Remediation');
    expect(requestKindFor('Thing')).to.equal('Thing');
    expect(groupKindString('infrastructure.cluster.x-k8s.io/v1beta1', 'Metal3RemediationTemplate')).to.equal(
      'Metal3RemediationTemplate.infrastructure.cluster.x-k8s.io',
    );
    expect(groupKindString('v1', 'ConfigMap')).to.equal('ConfigMap');
  });

  it('clone the template for a machine: its name and namespace, owner, cloned-from annotations, no server fields', () => {
    const machine: Machine = { metadata: { name: 'm-1', namespace: 'ns', uid: 'muid' } };
    const template = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3RemediationTemplate',
      metadata: { name: 'tmpl', namespace: 'ns' },
      spec: {
        template: {
          metadata: { uid: 'x', resourceVersion: '5', finalizers: ['f'], annotations: { keep: 'me' } },
          spec: { strategy: { type: 'Reboot' } },
        },
      },
    };
    const ref = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3RemediationTemplate',
      name: 'tmpl',
    };
    const req = buildRemediationRequest(template, ref, machine);
    expect(req).to.deep.equal({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'Metal3Remediation',
      metadata: {
        name: 'm-1',
        namespace: 'ns',
        annotations: {
          keep: 'me',
          'machine.openshift.io/cloned-from-name': 'tmpl',
          'machine.openshift.io/cloned-from-groupkind': 'Metal3RemediationTemplate.infrastructure.cluster.x-k8s.io',
        },
        ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: 'Machine', name: 'm-1', uid: 'muid' }],
      },
      spec: { strategy: { type: 'Reboot' } },
    });
    // The template itself is untouched.
    expect(template.spec.template.metadata.uid).to.equal('x');
  });

  it('refuse a template without spec.template', () => {
    const machine: Machine = { metadata: { name: 'm', namespace: 'ns' } };
    expect(() =>
      buildRemediationRequest(
        { kind: 'XTemplate', metadata: { name: 't' }, spec: {} },
        { kind: 'XTemplate', name: 't' },
        machine,
      ),
    )
      .to.throw(RemediationTemplateError)
      .with.property('message', 'missing Spec.Template on XTemplate t');
  });
});
