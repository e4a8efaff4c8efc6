// fieldValidation as kube-apiserver applies it while decoding a request: for built-in kinds the fields
// their Go types lack, for every object the fields ObjectMeta lacks (metadata.__proto__ among them), for
// custom resources also what the schema prunes. Strict fails with all of them in one message, Warn
// answers each as a Warning header, Ignore drops them silently; none is ever stored. Values of string
// maps (a ConfigMap's data) must be strings whatever the mode.
import { expect } from 'chai';
import { createNamespace, raw, startEnv, type Env, type Json } from './helpers.js';
import { allow, deny, patchOf, startWebhookServer, type WebhookServer } from './webhooks/webhook-server.js';

describe('envtest: fieldValidation and typed decoding', () => {
  let env: Env;
  const ns = 'fv';
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const json = { 'content-type': 'application/json' };
  const send = (method: string, path: string, body: string, headers: Record<string, string> = json) =>
    raw(env.cp, method, path, { body, headers });
  /** Registers a mutating webhook on CREATE and UPDATE of one resource, served by `hook` at `/<name>`. */
  async function registerMutatingHook(hook: WebhookServer, name: string, group: string, resource: string) {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: `${name}-hook` },
      webhooks: [
        {
          name: `${name}.hook.test`,
          clientConfig: { url: `${hook.url}/${name}`, caBundle: hook.caBundle },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          rules: [{ apiGroups: [group], apiVersions: ['v1'], resources: [resource], operations: ['CREATE', 'UPDATE'] }],
        },
      ],
    };
    const created = await send(
      'POST',
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      JSON.stringify(config),
    );
    expect(created.status).to.equal(201);
  }

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it("Strict rejects a built-in object's unknown fields, every one in kube's message, and stores nothing", async () => {
    const r = await send(
      'POST',
      `${cms}?fieldValidation=Strict`,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict","foo":1},"data":{"k":"v"},"spec":{"x":1}}',
    );
    expect(r.status).to.equal(400);
    expect(r.json().reason).to.equal('BadRequest');
    expect(r.json().message).to.equal(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.foo", unknown field "spec"',
    );
    expect((await raw(env.cp, 'GET', `${cms}/strict`)).status).to.equal(404);
  });

  it('Warn (the default) stores the object without the unknown fields and answers one Warning header each', async () => {
    const owner = await env.core.createNode({ body: { metadata: { name: 'owner' } } });
    const ref = { apiVersion: 'v1', kind: 'Node', name: 'owner', uid: owner.metadata?.uid };
    const r = await send(
      'POST',
      cms,
      JSON.stringify({
        metadata: { name: 'warn', foo: 1, ownerReferences: [{ ...ref, bogus: true }] },
        data: { k: 'v' },
        spec: {},
      }),
    );
    expect(r.status).to.equal(201);
    // Node's client joins repeated headers with ", ".
    expect(r.headers.warning).to.equal(
      [
        '299 - "unknown field \\"metadata.foo\\""',
        '299 - "unknown field \\"metadata.ownerReferences[0].bogus\\""',
        '299 - "unknown field \\"spec\\""',
      ].join(', '),
    );
    const got = (await raw(env.cp, 'GET', `${cms}/warn`)).json();
    expect(got.spec).to.equal(undefined);
    expect(got.metadata.foo).to.equal(undefined);
    expect(got.metadata.ownerReferences).to.deep.equal([ref]);
    expect(got.data).to.deep.equal({ k: 'v' });
  });

  it('Ignore drops the unknown fields without a warning', async () => {
    const r = await send('POST', `${cms}?fieldValidation=Ignore`, '{"metadata":{"name":"ignore","foo":1},"spec":{}}');
    expect(r.status).to.equal(201);
    expect(r.headers.warning).to.equal(undefined);
    expect(r.json().spec).to.equal(undefined);
  });

  it('never lets metadata.__proto__ through: rejected under Strict, dropped otherwise, no prototype touched', async () => {
    const body = '{"metadata":{"name":"proto","__proto__":{"polluted":"yes"}},"data":{"__proto__":"kept as a key"}}';
    const strict = await send('POST', `${cms}?fieldValidation=Strict`, body);
    expect(strict.status).to.equal(400);
    expect(strict.json().message).to.equal(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.__proto__"',
    );
    const warned = await send('POST', cms, body);
    expect(warned.status).to.equal(201);
    expect(String(warned.headers.warning)).to.contain('unknown field \\"metadata.__proto__\\"');
    const got = await raw(env.cp, 'GET', `${cms}/proto`);
    expect(got.text).to.not.contain('polluted');
    const stored = got.json();
    expect(Object.getPrototypeOf(stored.metadata)).to.equal(Object.prototype);
    // A data key is a map key, not a field: kube keeps it.
    expect(Object.hasOwn(stored.data, '__proto__')).to.equal(true);
    expect(({} as Json).polluted).to.equal(undefined);
  });

  it("applies to update and to every patch type (a patch's strict error is not wrapped, a body's is)", async () => {
    await send('POST', cms, '{"metadata":{"name":"writes"},"data":{"k":"v"}}');
    const current = (await raw(env.cp, 'GET', `${cms}/writes`)).json();
    const put = await send('PUT', `${cms}/writes?fieldValidation=Strict`, JSON.stringify({ ...current, spec: {} }));
    expect(put.status).to.equal(400);
    expect(put.json().message).to.equal(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
    const mergePatch = await send('PATCH', `${cms}/writes?fieldValidation=Strict`, '{"metadata":{"bogus":1}}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(mergePatch.json().message).to.equal('strict decoding error: unknown field "metadata.bogus"');
    const jsonPatch = await send(
      'PATCH',
      `${cms}/writes?fieldValidation=Strict`,
      '[{"op":"add","path":"/spec","value":{}}]',
      { 'content-type': 'application/json-patch+json' },
    );
    expect(jsonPatch.json().message).to.equal('strict decoding error: unknown field "spec"');
    const smp = await send('PATCH', `${cms}/writes?fieldValidation=Warn`, '{"spec":{}}', {
      'content-type': 'application/strategic-merge-patch+json',
    });
    expect(smp.status).to.equal(200);
    expect(String(smp.headers.warning)).to.contain('unknown field \\"spec\\"');
    const applied = await send(
      'PATCH',
      `${cms}/writes?fieldValidation=Strict&fieldManager=t`,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"writes"},"spec":{}}',
      { 'content-type': 'application/apply-patch+yaml' },
    );
    expect(applied.json().message).to.equal('strict decoding error: unknown field "spec"');
  });

  it("reports a custom resource's unknown metadata fields with those its schema prunes", async () => {
    const r = await send(
      'POST',
      `/apis/test.envtest.io/v1/namespaces/${ns}/widgets?fieldValidation=Strict`,
      '{"apiVersion":"test.envtest.io/v1","kind":"Widget","metadata":{"name":"w","bogus":1},"spec":{"size":"small","bogus":2}}',
    );
    expect(r.status).to.equal(400);
    expect(r.json().message).to.equal(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "metadata.bogus", unknown field "spec.bogus"',
    );
  });

  it('checks events.k8s.io/v1 Events against their own fields, not the core ones', async () => {
    const r = await send(
      'POST',
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldValidation=Strict`,
      '{"metadata":{"name":"e"},"eventTime":"2026-01-01T00:00:00.000000Z","note":"n","message":"core only","regarding":{"kind":"Node","name":"x","bogus":1}}',
    );
    expect(r.status).to.equal(400);
    expect(r.json().message).to.equal(
      'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "message", unknown field "regarding.bogus"',
    );
  });

  it("refuses a ConfigMap data value that is not a string with kube's decoding error, whatever fieldValidation says", async () => {
    for (const [value, jsonType] of [
      ['5', 'number'],
      ['true', 'bool'],
      ['{"a":1}', 'object'],
    ] as const) {
      const r = await send(
        'POST',
        `${cms}?fieldValidation=Ignore`,
        `{"metadata":{"name":"typed"},"data":{"port":${value}}}`,
      );
      expect(r.status).to.equal(400);
      expect(r.json().message).to.equal(
        `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${jsonType} into Go struct field ConfigMap.data of type string`,
      );
    }
    const notMap = await send('POST', cms, '{"metadata":{"name":"typed"},"data":["a"]}');
    expect(notMap.json().message).to.equal(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
    );
    await send('POST', cms, '{"metadata":{"name":"typed"},"data":{"ok":"v"}}');
  });

  it('answers a patch that leaves a ConfigMap data value not a string with kube\'s 422 on the field "patch", naming the patched object', async () => {
    await send('POST', cms, '{"metadata":{"name":"typed-patch"},"data":{"ok":"v"}}');
    const patched = await send('PATCH', `${cms}/typed-patch`, '{"data":{"ok":7}}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(patched.status).to.equal(422);
    const status = patched.json() as {
      reason: string;
      message: string;
      details: { causes: Array<{ reason: string; field: string }> };
    };
    expect(status.reason).to.equal('Invalid');
    expect(status.message.startsWith(' "" is invalid: patch: Invalid value: "{')).to.equal(true);
    expect(status.message)
      .to.contain('\\"ok\\":7')
      .and.match(/": json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/);
    expect(status.details.causes.map((c) => [c.reason, c.field])).to.deep.equal([['FieldValueInvalid', 'patch']]);
    expect((await raw(env.cp, 'GET', `${cms}/typed-patch`)).json().data).to.deep.equal({ ok: 'v' });
  });

  it('Strict rejects fields a body gives twice, naming each by its path with the unknown ones, and stores nothing', async () => {
    const body =
      '{"metadata":{"name":"dup","name":"dup","labels":{"a":"1","a":"2"}},"data":{"k":"v"},"bogus":1,"data":{"k":"w"}}';
    const r = await send('POST', `${cms}?fieldValidation=Strict`, body);
    expect(r.status).to.equal(400);
    expect(r.json().message).to.equal(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "metadata.labels.a", duplicate field "data", unknown field "bogus"',
    );
    expect((await raw(env.cp, 'GET', `${cms}/dup`)).status).to.equal(404);
  });

  it('Warn keeps the last of a duplicate field and warns once for each; Ignore keeps it silently', async () => {
    const warn = await send('POST', cms, '{"metadata":{"name":"dup-warn"},"data":{"k":"first","k":"last"}}');
    expect(warn.status).to.equal(201);
    expect(warn.headers.warning).to.equal('299 - "duplicate field \\"data.k\\""');
    expect(warn.json().data).to.deep.equal({ k: 'last' });
    const ignore = await send(
      'POST',
      `${cms}?fieldValidation=Ignore`,
      '{"metadata":{"name":"dup-ignore"},"data":{"k":"first","k":"last"}}',
    );
    expect(ignore.status).to.equal(201);
    expect(ignore.headers.warning).to.equal(undefined);
  });

  it('bounds the warnings of a body with thousands of unknown fields as kube does (4 KiB in all), so clients can read the reply', async () => {
    const data = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field${i}`, i]));
    const r = await send(
      'POST',
      cms,
      JSON.stringify({ metadata: { name: 'many-unknown' }, data: { k: 'v' }, ...data }),
    );
    expect(r.status).to.equal(201);
    const headers = ([] as string[]).concat(r.headers.warning ?? []).join(', ');
    expect(headers.length).to.be.below(8 * 1024);
    expect(headers).to.contain('unknown field \\"field0\\"').and.not.contain('field4999');
  });

  it("checks a merge patch for duplicate fields too, and a list's elements by index", async () => {
    await send('POST', cms, '{"metadata":{"name":"dup-patch"},"data":{"k":"v"}}');
    const r = await send(
      'PATCH',
      `${cms}/dup-patch?fieldValidation=Strict`,
      '{"metadata":{"finalizers":["a"],"ownerReferences":[{"name":"x","name":"y"}]},"data":{"k":"1","k":"2"}}',
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(r.status).to.equal(400);
    expect(r.json().message).to.equal(
      'strict decoding error: duplicate field "metadata.ownerReferences[0].name", duplicate field "data.k"',
    );
  });

  it('decodes a null data value as the empty string, as Go does', async () => {
    const r = await send('POST', cms, '{"metadata":{"name":"nullable"},"data":{"k":null}}');
    expect(r.status).to.equal(201);
    expect(r.json().data).to.deep.equal({ k: '' });
  });

  describe('with an admission webhook', () => {
    let hook: WebhookServer;
    before(async () => {
      hook = await startWebhookServer();
      hook.handle = (request) => allow(request);
      await registerMutatingHook(hook, 'cm', '', 'configmaps');
    });
    after(async () => {
      await raw(env.cp, 'DELETE', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/cm-hook');
      await hook.close();
    });

    it('decodes first, as kube does: Strict fails before any webhook is called, and webhooks never see unknown fields', async () => {
      const body = '{"metadata":{"name":"hooked","foo":1},"data":{"k":"v"},"spec":{}}';
      const strict = await send('POST', `${cms}?fieldValidation=Strict`, body);
      expect(strict.status).to.equal(400);
      expect(hook.reviews).to.have.length(0);
      const warned = await send('POST', cms, body);
      expect(warned.status).to.equal(201);
      expect(String(warned.headers.warning)).to.contain('unknown field \\"spec\\"');
      const seen = hook.reviews.map((r) => r.request.object);
      expect(seen).to.have.length(1);
      expect(seen[0].spec).to.equal(undefined);
      expect(seen[0].metadata.foo).to.equal(undefined);
      const updated = await send('PATCH', `${cms}/hooked`, '{"metadata":{"bar":1}}', {
        'content-type': 'application/merge-patch+json',
      });
      expect(String(updated.headers.warning)).to.contain('unknown field \\"metadata.bar\\"');
      expect(hook.reviews[1]?.request.object.metadata.bar).to.equal(undefined);
    });
  });
  describe('with an admission webhook on a custom resource', () => {
    let hook: WebhookServer;
    const widgets = `/apis/test.envtest.io/v1/namespaces/${ns}/widgets`;
    const body = (name: string, spec: Json) =>
      JSON.stringify({ apiVersion: 'test.envtest.io/v1', kind: 'Widget', metadata: { name }, spec });
    const denyAll = (request: Json) => deny(request, { code: 403, message: 'the webhook says no' });
    before(async () => {
      hook = await startWebhookServer();
      await registerMutatingHook(hook, 'widget', 'test.envtest.io', 'widgets');
    });
    beforeEach(() => {
      hook.reviews.length = 0;
      hook.handle = (request) => allow(request);
    });
    after(async () => {
      await raw(env.cp, 'DELETE', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/widget-hook');
      await hook.close();
    });

    it("Strict refuses a field the schema prunes with kube's decoding error before any webhook is called, on every write", async () => {
      hook.handle = denyAll;
      const create = await send(
        'POST',
        `${widgets}?fieldValidation=Strict`,
        body('w-strict', { size: 'small', bogusField: 1 }),
      );
      expect(create.status).to.equal(400);
      expect(create.json().message).to.equal(
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogusField"',
      );
      const apply = await send(
        'PATCH',
        `${widgets}/w-strict?fieldValidation=Strict&fieldManager=t`,
        body('w-strict', { size: 'small', bogusField: 1 }),
        { 'content-type': 'application/apply-patch+yaml' },
      );
      expect([apply.status, apply.json().message]).to.deep.equal([
        400,
        'strict decoding error: unknown field "spec.bogusField"',
      ]);
      expect(hook.reviews).to.have.length(0);

      hook.handle = (request) => allow(request);
      expect((await send('POST', widgets, body('w-strict', { size: 'small' }))).status).to.equal(201);
      const current = (await raw(env.cp, 'GET', `${widgets}/w-strict`)).json();
      hook.handle = denyAll;
      hook.reviews.length = 0;
      const put = await send(
        'PUT',
        `${widgets}/w-strict?fieldValidation=Strict`,
        JSON.stringify({ ...current, spec: { ...current.spec, bogusField: 1 } }),
      );
      expect([put.status, put.json().message]).to.deep.equal([
        400,
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogusField"',
      ]);
      const merge = await send('PATCH', `${widgets}/w-strict?fieldValidation=Strict`, '{"spec":{"bogusField":1}}', {
        'content-type': 'application/merge-patch+json',
      });
      const json = await send(
        'PATCH',
        `${widgets}/w-strict?fieldValidation=Strict`,
        '[{"op":"add","path":"/spec/bogusField","value":1}]',
        { 'content-type': 'application/json-patch+json' },
      );
      // An apply that would also conflict (size is the creator's) fails on the field first.
      const reapply = await send(
        'PATCH',
        `${widgets}/w-strict?fieldValidation=Strict&fieldManager=t`,
        body('w-strict', { size: 'medium', bogusField: 1 }),
        { 'content-type': 'application/apply-patch+yaml' },
      );
      for (const r of [merge, json, reapply]) {
        expect([r.status, r.json().message]).to.deep.equal([
          400,
          'strict decoding error: unknown field "spec.bogusField"',
        ]);
      }
      expect(hook.reviews).to.have.length(0);
      // The same writes without the unknown field reach the webhook, which is what refuses them.
      const denied = await send('PATCH', `${widgets}/w-strict?fieldValidation=Strict`, '{"spec":{"color":"red"}}', {
        'content-type': 'application/merge-patch+json',
      });
      expect(denied.json().message).to.contain('the webhook says no');
      expect(hook.reviews).to.have.length(1);
    });

    it('Warn answers the unknown fields as warnings and calls the webhooks with the object without them', async () => {
      const create = await send('POST', widgets, body('w-warn', { size: 'small', bogusField: 1 }));
      expect(create.status).to.equal(201);
      expect(create.headers.warning).to.equal('299 - "unknown field \\"spec.bogusField\\""');
      const patched = await send('PATCH', `${widgets}/w-warn`, '{"spec":{"otherField":2}}', {
        'content-type': 'application/merge-patch+json',
      });
      expect(patched.status).to.equal(200);
      expect(patched.headers.warning).to.equal('299 - "unknown field \\"spec.otherField\\""');
      const seen = hook.reviews.map((r) => r.request.object.spec);
      expect(seen).to.have.length(2);
      expect(seen.map((spec) => [spec.size, 'bogusField' in spec, 'otherField' in spec])).to.deep.equal([
        ['small', false, false],
        ['small', false, false],
      ]);
      const stored = (await raw(env.cp, 'GET', `${widgets}/w-warn`)).json();
      expect(stored.spec).to.deep.equal({ size: 'small', replicas: 1 });
    });

    it('drops without a word what a webhook adds that the schema lacks, even under Strict', async () => {
      hook.handle = (request) => patchOf(request, [{ op: 'add', path: '/spec/fromHook', value: true }]);
      const create = await send('POST', `${widgets}?fieldValidation=Strict`, body('w-hooked', { size: 'small' }));
      expect(create.status).to.equal(201);
      expect(create.headers.warning).to.equal(undefined);
      expect(create.json().spec).to.deep.equal({ size: 'small', replicas: 1 });
    });
  });
});
