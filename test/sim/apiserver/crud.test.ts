import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import { createNamespace, failure, merge, raw, startEnv, W, widget, type Env, type Json } from './helpers.js';

describe('envtest control plane: create, read, update', () => {
  let env: Env;
  const ns = 'crud';
  const M = { ...W, namespace: ns };

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('assigns uid, creationTimestamp, generation 1 and a resourceVersion on create, applying schema defaults and pruning', async () => {
    const created = await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('a', { size: 'small', junk: 1 }),
    });
    expect(created.metadata.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.metadata.generation).to.equal(1);
    expect(Number(created.metadata.resourceVersion)).to.be.greaterThan(0);
    expect(created.spec).to.deep.equal({ size: 'small', replicas: 1 });
    const got = await env.custom.getNamespacedCustomObject({ ...M, name: 'a' });
    expect(got).to.deep.equal(created);
  });

  it('keeps resourceVersions monotonic across kinds', async () => {
    const a = await env.custom.createNamespacedCustomObject({ ...M, body: widget('rv1') });
    const cm = await env.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'rv2' }, data: { k: 'v' } },
    });
    const b = await env.custom.createNamespacedCustomObject({ ...M, body: widget('rv3') });
    const rvs = [a.metadata.resourceVersion, cm.metadata?.resourceVersion, b.metadata.resourceVersion].map(Number);
    expect(rvs[0]).to.be.lessThan(rvs[1]!);
    expect(rvs[1]).to.be.lessThan(rvs[2]!);
  });

  it('answers 409 Conflict to an update with a stale resourceVersion and 422 to one without', async () => {
    const obj = await env.custom.createNamespacedCustomObject({ ...M, body: widget('stale') });
    const fresh = await env.custom.replaceNamespacedCustomObject({
      ...M,
      name: 'stale',
      body: { ...obj, spec: { size: 'large' } },
    });
    expect(fresh.spec.size).to.equal('large');
    const f = await failure(
      env.custom.replaceNamespacedCustomObject({ ...M, name: 'stale', body: { ...obj, spec: { size: 'medium' } } }),
    );
    expect(f.code).to.equal(409);
    expect(f.body.reason).to.equal('Conflict');
    expect(f.body.message).to.equal(
      'Operation cannot be fulfilled on widgets.test.envtest.io "stale": the object has been modified; please apply your changes to the latest version and try again',
    );
    const noRv = { ...fresh, metadata: { ...fresh.metadata, resourceVersion: undefined } };
    const g = await failure(env.custom.replaceNamespacedCustomObject({ ...M, name: 'stale', body: noRv }));
    expect(g.code).to.equal(422);
    expect(g.body.details.causes[0].field).to.equal('metadata.resourceVersion');
  });

  it('bumps generation only when something outside metadata and status changes', async () => {
    const obj = await env.custom.createNamespacedCustomObject({ ...M, body: widget('gen') });
    const labelled = await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'gen', body: { metadata: { labels: { a: 'b' } } } },
      merge,
    );
    expect(labelled.metadata.generation).to.equal(1);
    const status = await env.custom.patchNamespacedCustomObjectStatus(
      { ...M, name: 'gen', body: { status: { phase: 'Up' } } },
      merge,
    );
    expect(status.metadata.generation).to.equal(1);
    const spec = await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'gen', body: { spec: { replicas: 5 } } },
      merge,
    );
    expect(spec.metadata.generation).to.equal(2);
    expect(Number(spec.metadata.resourceVersion)).to.be.greaterThan(Number(obj.metadata.resourceVersion));
  });

  it('ignores status on the main resource and everything but status on /status', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: { ...widget('sub'), status: { phase: 'Ignored' } } });
    const got = await env.custom.getNamespacedCustomObject({ ...M, name: 'sub' });
    expect(got.status).to.equal(undefined);
    const viaMain = await env.custom.replaceNamespacedCustomObject({
      ...M,
      name: 'sub',
      body: { ...got, spec: { size: 'large' }, status: { phase: 'X' } },
    });
    expect(viaMain.spec.size).to.equal('large');
    expect(viaMain.status).to.equal(undefined);
    const viaStatus = await env.custom.replaceNamespacedCustomObjectStatus({
      ...M,
      name: 'sub',
      body: { ...viaMain, spec: { size: 'small' }, status: { phase: 'Running' } },
    });
    expect(viaStatus.spec.size).to.equal('large');
    expect(viaStatus.status).to.deep.equal({ phase: 'Running' });
  });

  it('does not write an update that changes nothing', async () => {
    const obj = await env.custom.createNamespacedCustomObject({ ...M, body: widget('noop') });
    const same = await env.custom.replaceNamespacedCustomObject({ ...M, name: 'noop', body: obj });
    expect(same.metadata.resourceVersion).to.equal(obj.metadata.resourceVersion);
  });

  it('generates names from generateName', async () => {
    const a = await env.custom.createNamespacedCustomObject({
      ...M,
      body: { ...widget(''), metadata: { generateName: 'gen-' } },
    });
    expect(a.metadata.name).to.match(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('keeps 58 characters of a long generateName, so a generated name is at most 63 (a DNS label)', async () => {
    const prefix = `${'long-prefix.'.repeat(20)}-`;
    const a = await env.custom.createNamespacedCustomObject({
      ...M,
      body: { ...widget(''), metadata: { generateName: prefix } },
    });
    expect(a.metadata.name).to.have.length(63);
    expect(a.metadata.name.slice(0, 58)).to.equal(prefix.slice(0, 58));
    expect(a.metadata.name.slice(58)).to.match(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(a.metadata.generateName).to.equal(prefix);
  });

  it('stores nothing for dryRun=All', async () => {
    const dry = await env.custom.createNamespacedCustomObject({ ...M, dryRun: 'All', body: widget('dry') });
    expect(dry.metadata.uid).to.be.a('string');
    expect((await failure(env.custom.getNamespacedCustomObject({ ...M, name: 'dry' }))).code).to.equal(404);
  });

  it('answers 404 NotFound with kube wording', async () => {
    const f = await failure(env.custom.getNamespacedCustomObject({ ...M, name: 'missing' }));
    expect(f.code).to.equal(404);
    expect(f.body).to.include({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      message: 'widgets.test.envtest.io "missing" not found',
      code: 404,
    });
    expect(f.body.details).to.deep.equal({ name: 'missing', group: 'test.envtest.io', kind: 'widgets' });
    const core = await failure(env.core.readNamespacedSecret({ namespace: ns, name: 'nope' }));
    expect(core.body.message).to.equal('secrets "nope" not found');
  });

  it('answers 409 AlreadyExists for a duplicate name', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('dup') });
    const f = await failure(env.custom.createNamespacedCustomObject({ ...M, body: widget('dup') }));
    expect(f.code).to.equal(409);
    expect(f.body.reason).to.equal('AlreadyExists');
    expect(f.body.message).to.equal('widgets.test.envtest.io "dup" already exists');
  });

  it('answers 422 Invalid naming every bad field, and stores nothing', async () => {
    const f = await failure(
      env.custom.createNamespacedCustomObject({
        ...M,
        body: widget('bad', { size: 'huge', replicas: -1, color: 'much-too-long-color' }),
      }),
    );
    expect(f.code).to.equal(422);
    expect(f.body.reason).to.equal('Invalid');
    const fields = (f.body.details.causes as Array<{ field: string; reason: string }>).map((c: Json) => c.field).sort();
    expect(fields).to.deep.equal(['spec.color', 'spec.replicas', 'spec.size']);
    expect(f.body.message).to.match(/^Widget\.test\.envtest\.io "bad" is invalid: \[/);
    const missing = await failure(env.custom.createNamespacedCustomObject({ ...M, body: widget('bad2', {}) }));
    expect(missing.body.details.causes).to.deep.equal([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' },
    ]);
    expect((await failure(env.custom.getNamespacedCustomObject({ ...M, name: 'bad' }))).code).to.equal(404);
  });

  it('rejects invalid names and label values with 422', async () => {
    const f = await failure(env.custom.createNamespacedCustomObject({ ...M, body: widget('Upper_Case') }));
    expect(f.code).to.equal(422);
    expect(f.body.details.causes[0].field).to.equal('metadata.name');
    const l = await failure(
      env.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'l', labels: { 'bad key!': 'x' } } },
      }),
    );
    expect(l.code).to.equal(422);
  });

  it('answers 400 to malformed JSON, 413 to bodies over the limit and 401 without the token', async () => {
    const bad = await raw(env.cp, 'POST', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets`, {
      body: '{"metadata": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.json().reason).to.equal('BadRequest');
    const big = JSON.stringify(widget('big', { size: 'small', config: { blob: 'x'.repeat(3 * 1024 * 1024) } }));
    const tooBig = await raw(env.cp, 'POST', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets`, {
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(tooBig.status).to.equal(413);
    expect(tooBig.json().reason).to.equal('RequestEntityTooLarge');
    const anon = await raw(env.cp, 'GET', '/api/v1/namespaces', { token: null });
    expect(anon.status).to.equal(401);
    const wrong = await raw(env.cp, 'GET', '/api/v1/namespaces', { token: 'wrong' });
    expect(wrong.status).to.equal(401);
  });

  it('answers 405 to a method a path does not allow and 404 to unknown resources', async () => {
    const r = await raw(env.cp, 'PUT', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets`, {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).to.equal(405);
    const u = await raw(env.cp, 'GET', '/apis/test.envtest.io/v1/namespaces/x/sprockets');
    expect(u.status).to.equal(404);
  });

  it('rejects objects in a namespace that does not exist', async () => {
    const f = await failure(env.custom.createNamespacedCustomObject({ ...M, namespace: 'nowhere', body: widget('x') }));
    expect(f.code).to.equal(404);
    expect(f.body.message).to.equal('namespaces "nowhere" not found');
  });

  it('serves built-in kinds through the typed clients (secrets, configmaps, nodes, leases, events)', async () => {
    await env.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 's' }, data: { k: Buffer.from('v').toString('base64') } },
    });
    expect((await env.core.readNamespacedSecret({ namespace: ns, name: 's' })).data).to.deep.equal({ k: 'dg==' });
    const node = await env.core.createNode({
      body: { metadata: { name: 'n1' }, spec: { providerID: 'aws:///i-1' }, status: { phase: 'Running' } },
    });
    expect(node.spec?.providerID).to.equal('aws:///i-1');
    const lease = await env.coordination.createNamespacedLease({
      namespace: ns,
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: new k8s.V1MicroTime() },
      },
    });
    const renewed = await env.coordination.replaceNamespacedLease({
      namespace: ns,
      name: 'leader',
      body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } },
    });
    expect(renewed.spec?.holderIdentity).to.equal('b');
    expect(
      (await failure(env.coordination.replaceNamespacedLease({ namespace: ns, name: 'leader', body: lease }))).code,
    ).to.equal(409);
    await env.core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'e1' },
        involvedObject: { kind: 'Node', name: 'n1', namespace: ns },
        reason: 'Tested',
        message: 'hello',
      },
    });
    const events = await env.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=n1' });
    expect(events.items.map((e: Json) => e.reason)).to.deep.equal(['Tested']);
    const evApi = env.kc.makeApiClient(k8s.EventsV1Api);
    await evApi.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'e2' },
        eventTime: new k8s.V1MicroTime(),
        regarding: { kind: 'Node', name: 'n1', namespace: ns },
        reason: 'R',
        action: 'A',
        reportingController: 'c',
        reportingInstance: 'i',
        type: 'Normal',
      },
    });
    // One store, two APIs: the core Event shows through events.k8s.io/v1 too.
    expect((await evApi.listNamespacedEvent({ namespace: ns })).items.map((e: Json) => e.metadata?.name)).to.deep.equal(
      ['e1', 'e2'],
    );
  });

  it('starts pods Pending whatever status they were created with', async () => {
    const pod = await env.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'x' }] },
        status: { phase: 'Running' },
      },
    });
    expect(pod.status?.phase).to.equal('Pending');
    const running = await env.core.replaceNamespacedPodStatus({
      namespace: ns,
      name: 'p',
      body: { ...pod, status: { phase: 'Running' } },
    });
    expect(running.status?.phase).to.equal('Running');
  });
});

describe('envtest control plane: protobuf bodies from kubectl generator commands', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => env.cp.stop());

  // The bytes `kubectl create namespace pb-ns` sends (k8s envelope, runtime.Unknown, v1 Namespace).
  function namespaceBody(name: string): Buffer {
    const str = (field: number, s: string) =>
      Buffer.concat([Buffer.from([(field << 3) | 2, Buffer.byteLength(s)]), Buffer.from(s)]);
    const msg = (field: number, b: Buffer) => Buffer.concat([Buffer.from([(field << 3) | 2, b.length]), b]);
    const meta = Buffer.concat([str(1, name), str(2, '')]);
    const ns = Buffer.concat([msg(1, meta), msg(2, Buffer.alloc(0)), msg(3, Buffer.alloc(0))]);
    const typeMeta = Buffer.concat([str(1, 'v1'), str(2, 'Namespace')]);
    return Buffer.concat([Buffer.from('k8s\0', 'latin1'), msg(1, typeMeta), msg(2, ns)]);
  }

  it('creates a namespace sent as application/vnd.kubernetes.protobuf', async () => {
    const r = await raw(env.cp, 'POST', '/api/v1/namespaces', {
      body: namespaceBody('pb-ns'),
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    });
    expect(r.status).to.equal(201);
    const ns = await env.core.readNamespace({ name: 'pb-ns' });
    expect(ns.metadata?.generateName).to.equal(undefined);
    expect(ns.status?.phase).to.equal('Active');
  });

  it('answers 415 to protobuf for a kind it cannot decode', async () => {
    const body = Buffer.concat([
      Buffer.from('k8s\0', 'latin1'),
      Buffer.from([0x0a, 0x09, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x03, 0x50, 0x6f, 0x64]),
    ]);
    const r = await raw(env.cp, 'POST', '/api/v1/namespaces/default/pods', {
      body,
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    });
    expect(r.status).to.equal(415);
  });
});
