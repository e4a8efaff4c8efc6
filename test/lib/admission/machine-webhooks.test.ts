// The four webhooks' rules that do not depend on a cloud: the cluster label, lifecycle hooks of a deleting
// Machine, finalizer removal, the MachineSet selector, authoritativeAPI, field paths from the object root,
// the credentials-Secret warning, and that a defaulted spec comes back as a patch of only the defaults. The
// providerSpec part is a small plug-in written for this test: one default and one rule.
import { expect } from 'chai';
import { ApiError } from '../../../lib/client/errors.js';
import type { AdmissionRequest, AdmissionResponse } from '../../../lib/admission/admission-review.js';
import type { AdmissionInfrastructure, MachineAdmission } from '../../../lib/admission/machine-admission.js';
import {
  mutateMachineAdmission,
  mutateMachineSetAdmission,
  validateMachineAdmission,
  validateMachineSetAdmission,
  type MachineWebhookOptions,
} from '../../../lib/admission/machine-webhooks.js';
import { requiredValue } from '../../../lib/cloud/spec-reader.js';
import type { Secret } from '../../../lib/apis/core.js';

const infrastructure: AdmissionInfrastructure = {
  clusterId: 'demo-x7k2p',
  platformType: 'Test',
  platformStatus: {},
  architecture: 'amd64',
};

/** Defaults `size` to "small"; requires `image`; warns about a `legacy` field; names its credentials Secret. */
const plugin: MachineAdmission = {
  platform: 'Test',
  default(value) {
    const v = value as Record<string, unknown>;
    return { value: { ...v, size: v.size || 'small' }, warnings: v.size ? [] : ['setting the default size "small"'] };
  },
  validate(value, ctx) {
    const v = value as Record<string, unknown>;
    return {
      errors: v.image ? [] : [requiredValue(`${ctx.fieldRoot}.image`, 'an image is required')],
      warnings: 'legacy' in v ? [`${ctx.fieldRoot}.legacy: deprecated, ignored`] : [],
      credentialsSecret: (v.credentialsSecret as { name?: string } | undefined)?.name,
    };
  },
};

const existing = new Set(['openshift-machine-api/cloud-credentials']);
const apiError = (code: number, reason: string, message: string) =>
  new ApiError(code, { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message } as never);
const secrets = {
  get: ({ namespace, name }: { namespace?: string; name: string }): Promise<Secret> => {
    if (name === 'forbidden') return Promise.reject(apiError(403, 'Forbidden', 'secrets "forbidden" is forbidden'));
    if (existing.has(`${namespace}/${name}`)) return Promise.resolve({ metadata: { name, namespace } } as Secret);
    return Promise.reject(apiError(404, 'NotFound', `secrets "${name}" not found`));
  },
};

const options: MachineWebhookOptions = { infrastructure, plugin, secrets };

const machine = (
  spec: Record<string, unknown> = { image: 'img', size: 'big' },
  meta: Record<string, unknown> = {},
) => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'openshift-machine-api', ...meta },
  spec: { providerSpec: { value: spec } },
});

const machineSet = (
  spec: Record<string, unknown> = { image: 'img', size: 'big' },
  selector: Record<string, unknown> = { matchLabels: { set: 'a' } },
  labels: Record<string, string> = { set: 'a' },
) => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineSet',
  metadata: { name: 'ms', namespace: 'openshift-machine-api' },
  spec: { replicas: 1, selector, template: { metadata: { labels }, spec: { providerSpec: { value: spec } } } },
});

function request(
  kind: 'Machine' | 'MachineSet',
  operation: AdmissionRequest['operation'],
  object: unknown,
  oldObject?: unknown,
): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'machine.openshift.io', version: 'v1beta1', kind },
    operation,
    object: object as never,
    oldObject: oldObject as never,
    namespace: 'openshift-machine-api',
  };
}

const patchOf = (res: AdmissionResponse): unknown =>
  res.patch ? JSON.parse(Buffer.from(res.patch, 'base64').toString('utf8')) : undefined;

describe('Machine mutating webhook', () => {
  it("adds the cluster label from the Infrastructure name and the provider's defaults, as a JSON Patch of just those", () => {
    const res = mutateMachineAdmission(
      request('Machine', 'CREATE', machine({ image: 'img' }, { labels: { role: 'worker' } })),
      options,
    );
    expect(res).to.deep.include({
      uid: 'uid-1',
      allowed: true,
      patchType: 'JSONPatch',
      warnings: ['setting the default size "small"'],
    });
    expect(patchOf(res)).to.deep.equal([
      { op: 'add', path: '/metadata/labels/machine.openshift.io~1cluster-api-cluster', value: 'demo-x7k2p' },
      { op: 'add', path: '/spec/providerSpec/value/size', value: 'small' },
    ]);
  });

  it('creates the labels map when the Machine has none', () => {
    const res = mutateMachineAdmission(request('Machine', 'CREATE', machine()), options);
    expect(patchOf(res)).to.deep.equal([
      { op: 'add', path: '/metadata/labels', value: { 'machine.openshift.io/cluster-api-cluster': 'demo-x7k2p' } },
    ]);
  });

  it('keeps a cluster label that is already there, whatever its value (changing it would orphan the Machine)', () => {
    const res = mutateMachineAdmission(
      request(
        'Machine',
        'CREATE',
        machine(undefined, { labels: { 'machine.openshift.io/cluster-api-cluster': 'other' } }),
      ),
      options,
    );
    expect(res).to.deep.equal({ uid: 'uid-1', allowed: true });
  });

  it('denies a Machine without providerSpec.value, naming the field', () => {
    const m = machine();
    delete (m.spec.providerSpec as { value?: unknown }).value;
    const res = mutateMachineAdmission(request('Machine', 'CREATE', m), options);
    expect(res.allowed).to.equal(false);
    expect(res.status).to.deep.equal({
      code: 403,
      reason: 'Forbidden',
      message: 'spec.providerSpec.value: Required value: a value must be provided',
    });
  });

  it('answers a request for another kind with a 400 naming it', () => {
    const res = mutateMachineAdmission(
      { ...request('Machine', 'CREATE', machine()), kind: { group: '', version: 'v1', kind: 'Pod' } },
      options,
    );
    expect(res).to.deep.equal({
      uid: 'uid-1',
      allowed: false,
      status: { code: 400, message: 'expected a Machine but got a Pod' },
    });
  });

  it('leaves the providerSpec alone on a platform without a plug-in, still adding the cluster label', () => {
    const res = mutateMachineAdmission(request('Machine', 'CREATE', machine({})), { infrastructure });
    expect(patchOf(res)).to.deep.equal([
      { op: 'add', path: '/metadata/labels', value: { 'machine.openshift.io/cluster-api-cluster': 'demo-x7k2p' } },
    ]);
  });
});

describe('Machine validating webhook', () => {
  it('denies with the field path from the object root and the rule', async () => {
    const res = await validateMachineAdmission(request('Machine', 'CREATE', machine({ size: 'big' })), options);
    expect(res.allowed).to.equal(false);
    expect(res.status?.message).to.equal('spec.providerSpec.value.image: Required value: an image is required');
  });

  it("returns the provider's warnings and warns when the credentials Secret does not exist", async () => {
    const res = await validateMachineAdmission(
      request('Machine', 'CREATE', machine({ image: 'i', legacy: 1, credentialsSecret: { name: 'missing' } })),
      options,
    );
    expect(res.allowed).to.equal(true);
    expect(res.warnings).to.deep.equal([
      'spec.providerSpec.value.legacy: deprecated, ignored',
      'spec.providerSpec.value.credentialsSecret: Invalid value: "missing": not found. Expected CredentialsSecret to exist',
    ]);
    const ok = await validateMachineAdmission(
      request('Machine', 'CREATE', machine({ image: 'i', credentialsSecret: { name: 'cloud-credentials' } })),
      options,
    );
    expect(ok).to.deep.equal({ uid: 'uid-1', allowed: true });
    const unreadable = await validateMachineAdmission(
      request('Machine', 'CREATE', machine({ image: 'i', credentialsSecret: { name: 'forbidden' } })),
      options,
    );
    expect(unreadable.allowed, 'a Secret that cannot be read is only a warning').to.equal(true);
    expect(unreadable.warnings).to.deep.equal([
      'spec.providerSpec.value.credentialsSecret: Invalid value: "forbidden": failed to get credentialsSecret: secrets "forbidden" is forbidden',
    ]);
  });

  const deleting = (hooks: Record<string, unknown>, finalizers = ['machine.machine.openshift.io']) => ({
    ...machine(),
    metadata: { ...machine().metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers },
    spec: { ...machine().spec, lifecycleHooks: hooks },
  });

  it('forbids adding or changing lifecycle hooks of a deleting Machine, naming the hooks', async () => {
    const old = deleting({ preDrain: [{ name: 'a', owner: 'x' }] });
    const res = await validateMachineAdmission(
      request(
        'Machine',
        'UPDATE',
        deleting({ preDrain: [{ name: 'a', owner: 'y' }], preTerminate: [{ name: 'b', owner: 'z' }] }),
        old,
      ),
      options,
    );
    expect(res.allowed).to.equal(false);
    expect(res.status?.message).to.equal(
      '[spec.lifecycleHooks.preDrain: Forbidden: pre-drain hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:a Owner:y}], ' +
        'spec.lifecycleHooks.preTerminate: Forbidden: pre-terminate hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:b Owner:z}]]',
    );
  });

  it('lets hooks of a deleting Machine be removed, and hooks of a live Machine change freely', async () => {
    const old = deleting({ preDrain: [{ name: 'a', owner: 'x' }] });
    expect((await validateMachineAdmission(request('Machine', 'UPDATE', deleting({}), old), options)).allowed).to.equal(
      true,
    );
    const live = machine();
    expect(
      (
        await validateMachineAdmission(
          request(
            'Machine',
            'UPDATE',
            { ...live, spec: { ...live.spec, lifecycleHooks: { preDrain: [{ name: 'n', owner: 'o' }] } } },
            live,
          ),
          options,
        )
      ).allowed,
    ).to.equal(true);
  });

  it('lets through an update that only removes the finalizers of a deleting Machine, however invalid its spec', async () => {
    const old = { ...deleting({}), spec: { providerSpec: { value: { size: 'big' } } } };
    const next = { ...old, metadata: { ...old.metadata, finalizers: undefined } };
    delete next.metadata.finalizers;
    expect(await validateMachineAdmission(request('Machine', 'UPDATE', next, old), options)).to.deep.equal({
      uid: 'uid-1',
      allowed: true,
    });
    const alsoLabel = { ...next, metadata: { ...next.metadata, labels: { x: 'y' } } };
    expect(
      (await validateMachineAdmission(request('Machine', 'UPDATE', alsoLabel, old), options)).allowed,
      'more than the finalizers changed',
    ).to.equal(false);
  });

  it('with MachineAPIMigration, refuses an authoritativeAPI it does not know; without it, warns that ClusterAPI has no effect', async () => {
    const m = { ...machine(), spec: { ...machine().spec, authoritativeAPI: 'Other' } };
    const gated = await validateMachineAdmission(request('Machine', 'CREATE', m), {
      ...options,
      featureGates: { MachineAPIMigration: true },
    });
    expect(gated.status?.message).to.equal(
      'spec.authoritativeAPI: Unsupported value: "Other": supported values: "MachineAPI", "ClusterAPI"',
    );
    const capi = { ...machine(), spec: { ...machine().spec, authoritativeAPI: 'ClusterAPI' } };
    expect(
      (
        await validateMachineAdmission(request('Machine', 'CREATE', capi), {
          ...options,
          featureGates: { MachineAPIMigration: true },
        })
      ).allowed,
    ).to.equal(true);
    const ungated = await validateMachineAdmission(request('Machine', 'CREATE', capi), options);
    expect(ungated.allowed).to.equal(true);
    expect(ungated.warnings).to.deep.equal([
      'spec.authoritativeAPI: "ClusterAPI" has no effect: the MachineAPIMigration feature gate is disabled, so the Machine API controllers manage this resource',
    ]);
  });
});

describe('drain and volume-detach timeout annotations in the validating webhooks', () => {
  it('refuse a Machine whose drain-timeout is not a Go duration, naming the annotation', async () => {
    const res = await validateMachineAdmission(
      request(
        'Machine',
        'CREATE',
        machine(undefined, { annotations: { 'machine.openshift.io/drain-timeout': '10 minutes' } }),
      ),
      options,
    );
    expect(res.allowed).to.equal(false);
    expect(res.status?.message).to.match(
      /^metadata\.annotations\.machine\.openshift\.io\/drain-timeout: Invalid value: "10 minutes": time: .*must be a duration such as "90s"/,
    );
  });

  it('refuse a negative volume-detach-timeout, and accept Go durations and 0', async () => {
    const bad = await validateMachineAdmission(
      request(
        'Machine',
        'CREATE',
        machine(undefined, { annotations: { 'machine.openshift.io/volume-detach-timeout': '-1m' } }),
      ),
      options,
    );
    expect(bad.status?.message).to.contain(
      'machine.openshift.io/volume-detach-timeout: Invalid value: "-1m": must not be negative',
    );
    const good = await validateMachineAdmission(
      request(
        'Machine',
        'CREATE',
        machine(undefined, {
          annotations: {
            'machine.openshift.io/drain-timeout': '1h30m',
            'machine.openshift.io/volume-detach-timeout': '0',
          },
        }),
      ),
      options,
    );
    expect(good.allowed).to.equal(true);
  });

  it("refuse a MachineSet whose template carries a bad drain-timeout, naming the template's annotation", async () => {
    const ms = machineSet();
    (ms.spec.template.metadata as Record<string, unknown>).annotations = { 'machine.openshift.io/drain-timeout': '5' };
    const res = await validateMachineSetAdmission(request('MachineSet', 'CREATE', ms), options);
    expect(res.status?.message).to.equal(
      'spec.template.metadata.annotations.machine.openshift.io/drain-timeout: Invalid value: "5": time: missing unit in duration "5": must be a duration such as "90s", "10m" or "1h30m" (0 for no limit)',
    );
  });

  it('let an update through when the bad value was already stored (its controllers must still write it)', async () => {
    const annotations = { 'machine.openshift.io/drain-timeout': 'soon' };
    const old = machine(undefined, { annotations });
    const res = await validateMachineAdmission(
      request('Machine', 'UPDATE', machine(undefined, { annotations, labels: { a: 'b' } }), old),
      options,
    );
    expect(res.allowed).to.equal(true);
  });
});

describe('MachineSet webhooks', () => {
  it("default the template's providerSpec, and nothing else", () => {
    const res = mutateMachineSetAdmission(request('MachineSet', 'CREATE', machineSet({ image: 'img' })), options);
    expect(patchOf(res)).to.deep.equal([
      { op: 'add', path: '/spec/template/spec/providerSpec/value/size', value: 'small' },
    ]);
  });

  it('name providerSpec fields from the MachineSet root', async () => {
    const res = await validateMachineSetAdmission(
      request('MachineSet', 'CREATE', machineSet({ legacy: true })),
      options,
    );
    expect(res.status?.message).to.equal(
      'spec.template.spec.providerSpec.value.image: Required value: an image is required',
    );
    expect(res.warnings).to.deep.equal(['spec.template.spec.providerSpec.value.legacy: deprecated, ignored']);
  });

  it('deny a selector that does not match the template labels', async () => {
    const res = await validateMachineSetAdmission(
      request('MachineSet', 'CREATE', machineSet(undefined, { matchLabels: { set: 'b' } })),
      options,
    );
    expect(res.status?.message).to.equal(
      'spec.template.metadata.labels: Invalid value: {"set":"a"}: `selector` does not match template `labels`',
    );
  });

  it('deny a selector that cannot be parsed', async () => {
    const res = await validateMachineSetAdmission(
      request('MachineSet', 'CREATE', machineSet(undefined, { matchExpressions: [{ key: 'set', operator: 'Near' }] })),
      options,
    );
    expect(res.status?.message).to.match(
      /^spec\.selector: Invalid value: .*: could not convert label selector to selector: /,
    );
  });

  it('deny a change of the selector', async () => {
    const old = machineSet(undefined, { matchLabels: { set: 'a' } }, { set: 'a', x: 'y' });
    const res = await validateMachineSetAdmission(
      request('MachineSet', 'UPDATE', machineSet(undefined, { matchLabels: { x: 'y' } }, { set: 'a', x: 'y' }), old),
      options,
    );
    expect(res.status?.message).to.equal('spec.selector: Forbidden: selector is immutable');
  });

  it('deny rollout annotations that cannot be used, naming the annotation, on create and update', async () => {
    const annotated = (annotations: Record<string, string>) => {
      const ms = machineSet();
      return { ...ms, metadata: { ...ms.metadata, annotations } };
    };
    const bad = await validateMachineSetAdmission(
      request('MachineSet', 'CREATE', annotated({ 'machine.openshift.io/rollout-strategy': 'Rolling' })),
      options,
    );
    expect(bad.allowed).to.equal(false);
    expect(bad.status?.message).to.equal(
      'metadata.annotations[machine.openshift.io/rollout-strategy]: Invalid value: "Rolling": must be one of "OnDelete", "RollingUpdate"',
    );
    const zero = await validateMachineSetAdmission(
      request(
        'MachineSet',
        'UPDATE',
        annotated({
          'machine.openshift.io/rollout-strategy': 'RollingUpdate',
          'machine.openshift.io/rollout-max-surge': '0',
          'machine.openshift.io/rollout-max-unavailable': '0%',
        }),
        machineSet(),
      ),
      options,
    );
    expect(zero.allowed).to.equal(false);
    expect(zero.status?.message).to.match(
      /^metadata\.annotations\[machine\.openshift\.io\/rollout-max-unavailable\]: Invalid value: "0%": may not be 0 when machine\.openshift\.io\/rollout-max-surge is 0/,
    );
    const good = await validateMachineSetAdmission(
      request(
        'MachineSet',
        'CREATE',
        annotated({
          'machine.openshift.io/rollout-strategy': 'RollingUpdate',
          'machine.openshift.io/rollout-max-surge': '25%',
          'machine.openshift.io/rollout-max-unavailable': '1',
        }),
      ),
      options,
    );
    expect(good.allowed).to.equal(true);
  });

  it("list every error at once, in apimachinery's aggregate form", async () => {
    const res = await validateMachineSetAdmission(
      request('MachineSet', 'CREATE', machineSet({}, { matchLabels: { set: 'b' } })),
      options,
    );
    expect(res.status?.message).to.match(
      /^\[spec\.template\.metadata\.labels: .*, spec\.template\.spec\.providerSpec\.value\.image: Required value: an image is required\]$/,
    );
  });
});
