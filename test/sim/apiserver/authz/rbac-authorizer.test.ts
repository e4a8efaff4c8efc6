// The RBAC authorizer over plain lists of roles and bindings: which bindings apply where, which subjects
// they name, aggregated ClusterRoles, system:masters, and what a user is told its rules are.
import { expect } from 'chai';
import type { RequestAttributes } from '../../../../sim/apiserver/authz/attributes.js';
import {
  RbacAuthorizer,
  type RbacBinding,
  type RbacObjects,
  type RbacRole,
} from '../../../../sim/apiserver/authz/rbac-authorizer.js';
import { AdminUser, serviceAccountUser, type UserInfo } from '../../../../sim/apiserver/authz/user.js';

function objects(roles: RbacRole[], bindings: RbacBinding[]): RbacObjects {
  const cluster = (o: { metadata: { namespace?: string } }) => o.metadata.namespace === undefined;
  const isClusterBinding = (b: RbacBinding) => cluster(b);
  return {
    clusterRoles: () => roles.filter(cluster),
    clusterRole: (name) => roles.find((r) => cluster(r) && r.metadata.name === name),
    role: (namespace, name) => roles.find((r) => r.metadata.namespace === namespace && r.metadata.name === name),
    clusterRoleBindings: () => bindings.filter(isClusterBinding),
    roleBindings: (namespace) => bindings.filter((b) => b.metadata.namespace === namespace),
  };
}

const controllers = serviceAccountUser({ namespace: 'openshift-machine-api', name: 'machine-api-controllers' });
const saSubject = { kind: 'ServiceAccount', name: 'machine-api-controllers', namespace: 'openshift-machine-api' };
const get = (resource: string, namespace: string, group = ''): RequestAttributes => ({
  resourceRequest: true,
  verb: 'get',
  group,
  resource,
  namespace,
  name: 'x',
});
const readSecrets: RbacRole = {
  metadata: { name: 'read-secrets' },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
};

function allowed(authz: RbacAuthorizer, user: UserInfo, a: RequestAttributes): boolean {
  return authz.authorize({ ...a, user }).allowed;
}

describe('RBAC authorizer', () => {
  it('applies a ClusterRoleBinding in every namespace and at the cluster scope', () => {
    const authz = new RbacAuthorizer(
      objects(
        [readSecrets],
        [{ metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'read-secrets' }, subjects: [saSubject] }],
      ),
    );
    expect(allowed(authz, controllers, get('secrets', 'a'))).to.equal(true);
    expect(allowed(authz, controllers, get('secrets', 'b'))).to.equal(true);
    expect(allowed(authz, controllers, get('configmaps', 'a'))).to.equal(false);
  });

  it('applies a RoleBinding only in its namespace, to its Role or to the ClusterRole it names', () => {
    const role: RbacRole = {
      metadata: { name: 'leases', namespace: 'openshift-machine-api' },
      rules: [{ verbs: ['get'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] }],
    };
    const authz = new RbacAuthorizer(
      objects(
        [readSecrets, role],
        [
          {
            metadata: { name: 'r', namespace: 'openshift-machine-api' },
            roleRef: { kind: 'Role', name: 'leases' },
            subjects: [saSubject],
          },
          {
            metadata: { name: 'c', namespace: 'openshift-machine-api' },
            roleRef: { kind: 'ClusterRole', name: 'read-secrets' },
            subjects: [saSubject],
          },
        ],
      ),
    );
    expect(allowed(authz, controllers, get('leases', 'openshift-machine-api', 'coordination.k8s.io'))).to.equal(true);
    expect(allowed(authz, controllers, get('leases', 'default', 'coordination.k8s.io'))).to.equal(false);
    expect(allowed(authz, controllers, get('secrets', 'openshift-machine-api'))).to.equal(true);
    expect(allowed(authz, controllers, get('secrets', 'default'))).to.equal(false);
    expect(allowed(authz, controllers, get('secrets', ''))).to.equal(false);
  });

  it("matches User, Group and ServiceAccount subjects; a ServiceAccount subject without a namespace is the binding's", () => {
    const bind = (name: string, namespace: string, subject: RbacBinding['subjects']): RbacBinding => ({
      metadata: { name, namespace },
      roleRef: { kind: 'ClusterRole', name: 'read-secrets' },
      subjects: subject,
    });
    const authz = new RbacAuthorizer(
      objects(
        [readSecrets],
        [
          bind('user', 'u', [{ kind: 'User', name: 'alice' }]),
          bind('group', 'g', [{ kind: 'Group', name: 'system:serviceaccounts:openshift-machine-api' }]),
          bind('local-sa', 'openshift-machine-api', [{ kind: 'ServiceAccount', name: 'machine-api-controllers' }]),
        ],
      ),
    );
    const alice = { username: 'alice', groups: ['system:authenticated'] };
    expect(allowed(authz, alice, get('secrets', 'u'))).to.equal(true);
    expect(allowed(authz, controllers, get('secrets', 'u'))).to.equal(false);
    expect(allowed(authz, controllers, get('secrets', 'g'))).to.equal(true);
    expect(allowed(authz, serviceAccountUser({ namespace: 'other', name: 'x' }), get('secrets', 'g'))).to.equal(false);
    expect(allowed(authz, controllers, get('secrets', 'openshift-machine-api'))).to.equal(true);
    expect(
      allowed(
        authz,
        serviceAccountUser({ namespace: 'other', name: 'machine-api-controllers' }),
        get('secrets', 'openshift-machine-api'),
      ),
    ).to.equal(false);
  });

  it('lets system:masters do everything with no binding at all', () => {
    const authz = new RbacAuthorizer(objects([], []));
    expect(
      allowed(authz, AdminUser, {
        resourceRequest: true,
        verb: 'delete',
        group: '',
        resource: 'nodes',
        namespace: '',
        name: 'n',
      }),
    ).to.equal(true);
    expect(authz.rulesFor(AdminUser, 'ns').resourceRules).to.deep.equal([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    ]);
  });

  it('says which bound role is missing, and refuses', () => {
    const authz = new RbacAuthorizer(
      objects([], [{ metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'gone' }, subjects: [saSubject] }]),
    );
    expect(authz.authorize({ ...get('secrets', 'a'), user: controllers })).to.deep.equal({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it('gives an aggregated ClusterRole the rules of every ClusterRole its selectors pick', () => {
    const aggregate: RbacRole = {
      metadata: { name: 'ext' },
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.ext-remediation/aggregate-to-ext-remediation': 'true' } }],
      },
      rules: [],
    };
    const metal3: RbacRole = {
      metadata: { name: 'metal3', labels: { 'rbac.ext-remediation/aggregate-to-ext-remediation': 'true' } },
      rules: [{ verbs: ['create'], apiGroups: ['infrastructure.cluster.x-k8s.io'], resources: ['metal3remediations'] }],
    };
    const roles = [aggregate];
    const authz = new RbacAuthorizer(
      objects(roles, [
        { metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'ext' }, subjects: [saSubject] },
      ]),
    );
    const create = {
      resourceRequest: true as const,
      verb: 'create',
      group: 'infrastructure.cluster.x-k8s.io',
      resource: 'metal3remediations',
      namespace: 'openshift-machine-api',
      name: '',
    };
    expect(allowed(authz, controllers, create)).to.equal(false);
    roles.push(metal3);
    expect(allowed(authz, controllers, create)).to.equal(true);
  });

  it('lists the rules bound to a user in a namespace, resource and non-resource apart', () => {
    const role: RbacRole = {
      metadata: { name: 'mixed' },
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['creds'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ],
    };
    const authz = new RbacAuthorizer(
      objects(
        [role],
        [
          {
            metadata: { name: 'b', namespace: 'ns' },
            roleRef: { kind: 'ClusterRole', name: 'mixed' },
            subjects: [saSubject],
          },
        ],
      ),
    );
    expect(authz.rulesFor(controllers, 'ns')).to.deep.equal({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['creds'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
    });
    expect(authz.rulesFor(controllers, 'other').resourceRules).to.deep.equal([]);
  });
});
