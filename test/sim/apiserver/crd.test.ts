import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import {
  createNamespace,
  eventually,
  failure,
  merge,
  raw,
  startEnv,
  W,
  widget,
  type Env,
  type Json,
} from './helpers.js';

const sprockets = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sprockets.live.envtest.io' },
  spec: {
    group: 'live.envtest.io',
    scope: 'Namespaced',
    names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { teeth: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

describe('envtest control plane: CRDs, discovery, scale and server-side printing', () => {
  let env: Env;
  const ns = 'crd';
  const M = { ...W, namespace: ns };
  const S = { group: 'live.envtest.io', version: 'v1alpha1', plural: 'sprockets', namespace: ns };

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('serves discovery for built-in groups and the CRDs from crdDirs', async () => {
    const version = await raw(env.cp, 'GET', '/version');
    expect(version.json().major).to.equal('1');
    const groups = (await raw(env.cp, 'GET', '/apis')).json();
    expect(groups.kind).to.equal('APIGroupList');
    const names = groups.groups.map((g: Json) => g.name);
    expect(names).to.include.members([
      'apps',
      'policy',
      'coordination.k8s.io',
      'events.k8s.io',
      'apiextensions.k8s.io',
      'test.envtest.io',
    ]);
    const core = (await raw(env.cp, 'GET', '/api/v1')).json();
    expect(core.resources.map((r: Json) => r.name)).to.include.members([
      'pods',
      'pods/eviction',
      'pods/status',
      'nodes',
      'namespaces',
      'secrets',
      'configmaps',
      'events',
    ]);
    const test = (await raw(env.cp, 'GET', '/apis/test.envtest.io/v1')).json();
    const widgets = test.resources.find((r: Json) => r.name === 'widgets');
    expect(widgets).to.include({ kind: 'Widget', namespaced: true, singularName: 'widget' });
    expect(widgets.shortNames).to.deep.equal(['wd']);
    expect(test.resources.map((r: Json) => r.name)).to.include.members(['widgets/status', 'widgets/scale']);
  });

  it('starts serving a CRD as soon as it is created, and stops (dropping its objects) when it is deleted', async () => {
    expect((await raw(env.cp, 'GET', '/apis/live.envtest.io/v1alpha1')).status).to.equal(404);
    const crd = await env.apiext.createCustomResourceDefinition({ body: sprockets });
    expect(crd.status?.conditions?.find((c: Json) => c.type === 'Established')?.status).to.equal('True');
    await env.custom.createNamespacedCustomObject({
      ...S,
      body: { apiVersion: 'live.envtest.io/v1alpha1', kind: 'Sprocket', metadata: { name: 's1' }, spec: { teeth: 12 } },
    });
    const bad = await failure(
      env.custom.createNamespacedCustomObject({
        ...S,
        body: {
          apiVersion: 'live.envtest.io/v1alpha1',
          kind: 'Sprocket',
          metadata: { name: 's2' },
          spec: { teeth: 'many' },
        },
      }),
    );
    expect(bad.code).to.equal(422);
    const objs = k8s.KubernetesObjectApi.makeApiClient(env.kc);
    const listed = await objs.list('live.envtest.io/v1alpha1', 'Sprocket', ns);
    expect(listed.items.map((i: Json) => i.metadata?.name)).to.deep.equal(['s1']);
    await env.apiext.deleteCustomResourceDefinition({ name: 'sprockets.live.envtest.io' });
    expect((await raw(env.cp, 'GET', `/apis/live.envtest.io/v1alpha1/namespaces/${ns}/sprockets`)).status).to.equal(
      404,
    );
    expect((await raw(env.cp, 'GET', '/apis')).json().groups.map((g: Json) => g.name)).to.not.include(
      'live.envtest.io',
    );
    await env.apiext.createCustomResourceDefinition({ body: sprockets });
    expect((await env.custom.listNamespacedCustomObject({ ...S })).items).to.deep.equal([]);
  });

  it('applies a CRD update (a new schema) to the next write', async () => {
    const current = await env.apiext.readCustomResourceDefinition({ name: 'sprockets.live.envtest.io' });
    const v = current.spec.versions[0]!;
    v.schema!.openAPIV3Schema!.properties!.spec!.properties!.teeth!.maximum = 10;
    await env.apiext.replaceCustomResourceDefinition({ name: 'sprockets.live.envtest.io', body: current });
    const f = await failure(
      env.custom.createNamespacedCustomObject({
        ...S,
        body: {
          apiVersion: 'live.envtest.io/v1alpha1',
          kind: 'Sprocket',
          metadata: { name: 's3' },
          spec: { teeth: 12 },
        },
      }),
    );
    expect(f.code).to.equal(422);
  });

  it('rejects an invalid CRD with 422', async () => {
    const f = await failure(
      env.apiext.createCustomResourceDefinition({
        body: { ...sprockets, metadata: { name: 'wrong.live.envtest.io' } },
      }),
    );
    expect(f.code).to.equal(422);
    expect(f.body.details.causes.map((c: Json) => c.field)).to.include('metadata.name');
  });

  it('rejects a CRD whose validation rule does not compile, naming the rule in the schema', async () => {
    const broken = structuredClone(sprockets);
    broken.metadata.name = 'gears.live.envtest.io';
    broken.spec.names = { plural: 'gears', singular: 'gear', kind: 'Gear' };
    // The typed client writes x-kubernetes-validations from its x_kubernetes_validations property.
    (broken.spec.versions[0]!.schema.openAPIV3Schema.properties.spec as Json).x_kubernetes_validations = [
      { rule: 'self.teeth >', message: 'm' },
    ];
    const f = await failure(env.apiext.createCustomResourceDefinition({ body: broken }));
    expect(f.code).to.equal(422);
    const cause = f.body.details.causes.find((c: Json) => c.field.endsWith('.rule'));
    expect(cause.field).to.equal(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    expect(cause.message).to.match(/^Invalid value: "self\.teeth >": compilation failed: /);
  });

  it('runs a CRD update that adds a validation rule on the next write, with kube-apiserver wording', async () => {
    const current = await env.apiext.readCustomResourceDefinition({ name: 'sprockets.live.envtest.io' });
    current.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.x_kubernetes_validations = [
      { rule: 'self.teeth % 2 == 0', message: 'teeth come in pairs' },
    ];
    await env.apiext.replaceCustomResourceDefinition({ name: 'sprockets.live.envtest.io', body: current });
    const body = (name: string, teeth: number) => ({
      apiVersion: 'live.envtest.io/v1alpha1',
      kind: 'Sprocket',
      metadata: { name },
      spec: { teeth },
    });
    const f = await failure(env.custom.createNamespacedCustomObject({ ...S, body: body('odd', 7) }));
    expect(f.code).to.equal(422);
    expect(f.body.message).to.equal(
      'Sprocket.live.envtest.io "odd" is invalid: spec: Invalid value: "object": teeth come in pairs',
    );
    await env.custom.createNamespacedCustomObject({ ...S, body: body('even', 8) });
  });

  it('serves the scale subresource as autoscaling/v1 Scale', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('sc', { size: 'small', replicas: 2 }) });
    await env.custom.patchNamespacedCustomObjectStatus(
      { ...M, name: 'sc', body: { status: { replicas: 1, labelSelector: 'app=sc' } } },
      merge,
    );
    const scale = await env.custom.getNamespacedCustomObjectScale({ ...M, name: 'sc' });
    expect(scale).to.deep.include({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=sc' },
    });
    const patched = await env.custom.patchNamespacedCustomObjectScale(
      { ...M, name: 'sc', body: { spec: { replicas: 5 } } },
      merge,
    );
    expect(patched.spec.replicas).to.equal(5);
    const replaced = await env.custom.replaceNamespacedCustomObjectScale({
      ...M,
      name: 'sc',
      body: { ...patched, spec: { replicas: 3 } },
    });
    expect(replaced.spec.replicas).to.equal(3);
    const stale = await failure(
      env.custom.replaceNamespacedCustomObjectScale({ ...M, name: 'sc', body: { ...patched, spec: { replicas: 4 } } }),
    );
    expect(stale.code).to.equal(409);
    const neg = await failure(
      env.custom.patchNamespacedCustomObjectScale({ ...M, name: 'sc', body: { spec: { replicas: -1 } } }, merge),
    );
    expect(neg.code).to.equal(422);
    const w = await env.custom.getNamespacedCustomObject({ ...M, name: 'sc' });
    expect(w.spec.replicas).to.equal(3);
    expect(w.metadata.generation).to.equal(3);
  });

  it('prints tables with the CRD printer columns', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('tbl', { size: 'large', replicas: 4, color: 'red' }),
    });
    await env.custom.patchNamespacedCustomObjectStatus(
      { ...M, name: 'tbl', body: { status: { phase: 'Running' } } },
      merge,
    );
    const accept = {
      accept:
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
    };
    const t = (
      await raw(env.cp, 'GET', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets?fieldSelector=metadata.name=tbl`, {
        headers: accept,
      })
    ).json();
    expect(t.kind).to.equal('Table');
    expect(t.columnDefinitions.map((c: Json) => c.name)).to.deep.equal(['Name', 'Replicas', 'Phase', 'Color', 'Age']);
    expect(t.rows[0].cells.slice(0, 4)).to.deep.equal(['tbl', 4, 'Running', 'red']);
    expect(t.rows[0].object.kind).to.equal('PartialObjectMetadata');
    const one = (
      await raw(env.cp, 'GET', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets/tbl`, { headers: accept })
    ).json();
    expect(one.rows).to.have.length(1);
    const nodes = (await raw(env.cp, 'GET', '/api/v1/nodes', { headers: accept })).json();
    expect(nodes.columnDefinitions[0].name).to.equal('Name');
  });

  it('serves OpenAPI v3 documents that tell kubectl the server validates fields', async () => {
    const root = (await raw(env.cp, 'GET', '/openapi/v3')).json();
    const url = root.paths['apis/test.envtest.io/v1'].serverRelativeURL as string;
    const doc = (await raw(env.cp, 'GET', url)).json();
    const patch = doc.paths[`/apis/test.envtest.io/v1/namespaces/{namespace}/widgets/{name}`].patch;
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'test.envtest.io',
      version: 'v1',
      kind: 'Widget',
    });
    expect(patch.parameters.map((p: Json) => p.name)).to.include('fieldValidation');
    expect((await raw(env.cp, 'GET', '/openapi/v2')).status).to.equal(404);
  });

  it('serves cluster-scoped custom resources', async () => {
    const G = { group: 'test.envtest.io', version: 'v1', plural: 'gadgets' };
    await env.custom.createClusterCustomObject({
      ...G,
      body: { apiVersion: 'test.envtest.io/v1', kind: 'Gadget', metadata: { name: 'g1' }, anything: { goes: true } },
    });
    const g = await env.custom.getClusterCustomObject({ ...G, name: 'g1' });
    expect(g.anything).to.deep.equal({ goes: true });
    expect(g.metadata.namespace).to.equal(undefined);
    await eventually(async () => (await env.custom.listClusterCustomObject({ ...G })).items.length === 1);
  });
});
