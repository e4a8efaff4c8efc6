// The control plane with RBAC on: ServiceAccount tokens authenticate, stored Roles, ClusterRoles and bindings
// decide each request (a write made now decides the next request), refusals are kube's 403, and the access
// reviews answer from the same rules. (manifests/rbac with kubectl: test/e2e/kubectl-rbac.test.ts.)
import { expect } from 'chai';
import { raw, startEnv, type Env } from './helpers.js';

const json = (o: unknown) => JSON.stringify(o);
const ct = { 'content-type': 'application/json' };
const ns = 'team';
const rbac = '/apis/rbac.authorization.k8s.io/v1';

describe('envtest with RBAC on', function () {
  this.timeout(30_000);
  let env: Env;
  let token: string;
  const post = (path: string, body: unknown, t?: string) =>
    raw(env.cp, 'POST', path, { body: json(body), headers: ct, token: t });

  before(async () => {
    env = await startEnv({ rbac: true });
    expect((await post('/api/v1/namespaces', { metadata: { name: ns } })).status).to.equal(201);
    expect((await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'bot' } })).status).to.equal(
      201,
    );
    token = env.cp.serviceAccountToken(ns, 'bot');
  });
  after(async () => env.cp.stop());

  it("knows the token's ServiceAccount and its groups (SelfSubjectReview), and lets it use discovery", async () => {
    const who = await post(
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      token,
    );
    expect(who.status).to.equal(201);
    expect(who.json().status.userInfo).to.deep.equal({
      username: `system:serviceaccount:${ns}:bot`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    });
    expect((await raw(env.cp, 'GET', '/apis', { token })).status).to.equal(200);
    expect((await raw(env.cp, 'GET', '/version', { token })).status).to.equal(200);
  });

  it("refuses what no role grants with kube's 403, before looking at whether the thing exists", async () => {
    const res = await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/configmaps`, { token });
    expect(res.status).to.equal(403);
    expect(res.json()).to.deep.include({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: `configmaps is forbidden: User "system:serviceaccount:${ns}:bot" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    });
    expect((await raw(env.cp, 'GET', '/apis/no.such.group/v1/things', { token })).status).to.equal(403);
  });

  it('allows what a Role bound by a RoleBinding grants, in that namespace only, from the next request on', async () => {
    expect(
      (
        await post(`${rbac}/namespaces/${ns}/roles`, {
          metadata: { name: 'cm' },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'create'] }],
        })
      ).status,
    ).to.equal(201);
    expect(
      (
        await post(`${rbac}/namespaces/${ns}/rolebindings`, {
          metadata: { name: 'bot-cm' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
          subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: ns }],
        })
      ).status,
    ).to.equal(201);
    expect((await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/configmaps`, { token })).status).to.equal(200);
    expect(
      (await post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { a: 'b' } }, token)).status,
    ).to.equal(201);
    expect((await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/c`, { token })).status).to.equal(403);
    expect((await raw(env.cp, 'GET', '/api/v1/namespaces/default/configmaps', { token })).status).to.equal(403);
    expect((await raw(env.cp, 'DELETE', `${rbac}/namespaces/${ns}/rolebindings/bot-cm`)).status).to.equal(200);
    expect((await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/configmaps`, { token })).status).to.equal(403);
  });

  it('answers access reviews from the same rules, for the caller, an impersonated ServiceAccount and a named subject', async () => {
    await post(`${rbac}/clusterroles`, {
      metadata: { name: 'node-reader' },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
    });
    await post(`${rbac}/clusterrolebindings`, {
      metadata: { name: 'bot-nodes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: ns }],
    });
    const ssar = (verb: string) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb, resource: 'nodes' } },
    });
    expect(
      (await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar('list'), token)).json().status.allowed,
    ).to.equal(true);
    expect(
      (await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar('delete'), token)).json().status
        .allowed,
    ).to.equal(false);
    const as = await raw(env.cp, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: json(ssar('list')),
      headers: { ...ct, 'impersonate-user': `system:serviceaccount:${ns}:bot` },
    });
    expect(as.json().status.allowed).to.equal(true);
    const sar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: `system:serviceaccount:${ns}:bot`,
        resourceAttributes: { verb: 'get', resource: 'nodes', name: 'n1' },
      },
    };
    expect((await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar)).json().status.allowed).to.equal(
      true,
    );
    // Only the admin may ask about others: the ServiceAccount has no right to create SubjectAccessReviews.
    expect((await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar, token)).status).to.equal(403);
    const rules = await post(
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } },
      token,
    );
    expect(rules.json().status.resourceRules).to.deep.include({
      verbs: ['get', 'list'],
      apiGroups: [''],
      resources: ['nodes'],
    });
  });

  it('lets a ServiceAccount impersonate no one, and the admin anyone', async () => {
    const res = await raw(env.cp, 'GET', '/api/v1/nodes', { token, headers: { 'impersonate-user': 'system:admin' } });
    expect(res.status).to.equal(403);
    expect(res.json().message).to.equal(
      `users "system:admin" is forbidden: User "system:serviceaccount:${ns}:bot" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
    const asBot = await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/secrets`, {
      headers: { 'impersonate-user': `system:serviceaccount:${ns}:bot` },
    });
    expect(asBot.status).to.equal(403);
  });

  it("mints tokens through TokenRequest, and a deleted ServiceAccount's tokens stop working (401)", async () => {
    expect((await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'temp' } })).status).to.equal(
      201,
    );
    const tr = await post(`/api/v1/namespaces/${ns}/serviceaccounts/temp/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    expect(tr.status).to.equal(201);
    const temp = tr.json().status.token as string;
    expect((await raw(env.cp, 'GET', '/version', { token: temp })).status).to.equal(200);
    expect((await raw(env.cp, 'DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/temp`)).status).to.equal(200);
    expect((await raw(env.cp, 'GET', '/version', { token: temp })).status).to.equal(401);
    // Re-created with the same name: a new uid, and the old token stays dead.
    await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'temp' } });
    expect((await raw(env.cp, 'GET', '/version', { token: temp })).status).to.equal(401);
  });

  it("holds kube's bootstrap roles: system:masters is cluster-admin, every authenticated user a basic user", async () => {
    const crb = await raw(env.cp, 'GET', `${rbac}/clusterrolebindings/cluster-admin`);
    expect(crb.json().subjects).to.deep.equal([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' },
    ]);
    expect((await raw(env.cp, 'GET', `${rbac}/clusterroles/system:basic-user`)).status).to.equal(200);
  });
});
