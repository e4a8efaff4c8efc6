// Review kinds: asked and answered, never stored; the control plane's one user may do everything, anyone else
// nothing. (kubectl auth can-i / whoami against them: test/e2e/kubectl.test.ts.)
import { expect } from 'chai';
import { raw, startEnv, type Env } from '../helpers.js';

const json = (o: unknown) => ({ body: JSON.stringify(o), headers: { 'content-type': 'application/json' } });

describe('envtest review kinds', function () {
  this.timeout(30_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => env.cp.stop());

  const ssar = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: {
      resourceAttributes: { verb: 'delete', group: 'machine.openshift.io', resource: 'machines', namespace: 'ns' },
    },
  };

  it('answers a SelfSubjectAccessReview for its user with allowed, 201, and stores nothing', async () => {
    const res = await raw(env.cp, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', json(ssar));
    expect(res.status).to.equal(201);
    expect(res.json()).to.deep.include({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    expect((await raw(env.cp, 'GET', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).status).to.equal(405);
  });

  it('says no for a user it impersonates, and about any other subject', async () => {
    const as = await raw(env.cp, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      ...json(ssar),
      headers: { 'content-type': 'application/json', 'impersonate-user': 'alice' },
    });
    expect((as.json() as { status: { allowed: boolean } }).status.allowed).to.equal(false);
    const sar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { ...ssar.spec, user: 'bob' },
    };
    const res = await raw(env.cp, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', json(sar));
    expect(res.status).to.equal(201);
    expect((res.json() as { status: { allowed: boolean; reason: string } }).status)
      .to.include({ allowed: false })
      .and.have.property('reason')
      .that.contains('system:admin');
    const masters = await raw(
      env.cp,
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      json({ ...sar, spec: { ...sar.spec, user: 'carol', groups: ['system:masters'] } }),
    );
    expect((masters.json() as { status: { allowed: boolean } }).status.allowed).to.equal(true);
  });

  it('refuses an access review with neither or both attribute kinds, naming the field (422)', async () => {
    for (const spec of [{}, { resourceAttributes: {}, nonResourceAttributes: {} }]) {
      const res = await raw(
        env.cp,
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        json({ ...ssar, spec }),
      );
      expect(res.status).to.equal(422);
      expect((res.json() as { message: string }).message)
        .to.contain('spec.resourceAttributes')
        .and.contain('exactly one of nonResourceAttributes or resourceAttributes');
    }
  });

  it('tells who the caller is (SelfSubjectReview) and lists its rules (SelfSubjectRulesReview, which needs a namespace)', async () => {
    const who = await raw(
      env.cp,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      json({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    );
    expect((who.json() as { status: unknown }).status).to.deep.equal({
      userInfo: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
    });
    const rules = await raw(
      env.cp,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      json({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'ns' } }),
    );
    expect((rules.json() as { status: { resourceRules: unknown[] } }).status.resourceRules).to.deep.equal([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    ]);
    const none = await raw(
      env.cp,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      json({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} }),
    );
    expect(none.status).to.equal(422);
  });

  it('lists the review kinds in discovery with the create verb only', async () => {
    const list = (await raw(env.cp, 'GET', '/apis/authorization.k8s.io/v1')).json() as {
      resources: Array<{ name: string; verbs: string[] }>;
    };
    expect(list.resources.find((r) => r.name === 'selfsubjectaccessreviews')?.verbs).to.deep.equal(['create']);
  });
});
