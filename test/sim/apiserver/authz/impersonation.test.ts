// Impersonation: who may act as whom, and the groups an impersonated user gets.
import { expect } from 'chai';
import { AdminOnlyAuthorizer } from '../../../../sim/apiserver/authz/admin-only-authorizer.js';
import { actingUser } from '../../../../sim/apiserver/authz/impersonation.js';
import { RbacAuthorizer } from '../../../../sim/apiserver/authz/rbac-authorizer.js';
import { AdminUser } from '../../../../sim/apiserver/authz/user.js';
import { StatusError } from '../../../../sim/apiserver/errors.js';

const none = new RbacAuthorizer({
  clusterRoles: () => [],
  clusterRole: () => undefined,
  role: () => undefined,
  clusterRoleBindings: () => [],
  roleBindings: () => [],
});

describe('impersonation', () => {
  it('acts as the requester when nothing is impersonated', () => {
    expect(actingUser(none, AdminUser, {})).to.equal(AdminUser);
  });

  it('gives an impersonated ServiceAccount its groups and system:authenticated', () => {
    expect(
      actingUser(new AdminOnlyAuthorizer(), AdminUser, { 'impersonate-user': ['system:serviceaccount:ns:sa'] }),
    ).to.deep.equal({
      username: 'system:serviceaccount:ns:sa',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    });
    expect(
      actingUser(new AdminOnlyAuthorizer(), AdminUser, {
        'impersonate-user': ['alice'],
        'impersonate-group': ['devs'],
      }),
    ).to.deep.equal({ username: 'alice', groups: ['devs', 'system:authenticated'] });
  });

  it('refuses with 403 a requester that may not impersonate, naming the resource it would need', () => {
    const alice = { username: 'alice', groups: ['system:authenticated'] };
    let err: unknown;
    try {
      actingUser(none, alice, { 'impersonate-user': ['system:serviceaccount:ns:sa'] });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(StatusError);
    expect((err as StatusError).code).to.equal(403);
    expect((err as StatusError).message).to.equal(
      'serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"',
    );
  });

  it('refuses groups without a user (400)', () => {
    expect(() => actingUser(none, AdminUser, { 'impersonate-group': ['devs'] }))
      .to.throw(StatusError)
      .with.property('code', 400);
  });
});
