import { expect } from 'chai';
import { RE2JS } from 're2js';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Machine, MachineHealthCheck, MachineSet } from '../../lib/apis/machine-types.js';
import { applySchema, type JSONSchemaProps } from '../../sim/apiserver/schema/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const crdDir = join(repo, 'manifests', 'crds');
const sampleDir = join(repo, 'manifests', 'samples', 'generic');

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  minimum?: number;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  [k: string]: unknown;
}

interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  priority?: number;
}

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: Schema };
      subresources?: {
        status?: object;
        scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
      };
      additionalPrinterColumns?: PrinterColumn[];
    }>;
  };
}

const files = readdirSync(crdDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const crds = new Map<string, Crd>(files.map((f) => [f, parse(readFileSync(join(crdDir, f), 'utf8')) as Crd]));
const crdFor = (kind: string): Crd => {
  const found = [...crds.values()].find((c) => c.spec.names.kind === kind);
  if (!found) throw new Error(`no CRD for ${kind}`);
  return found;
};
const schemaFor = (kind: string): Schema => crdFor(kind).spec.versions[0]!.schema.openAPIV3Schema;
const sample = (file: string): unknown => parse(readFileSync(join(sampleDir, file), 'utf8'));

/** Every optional field made required, recursively: a value of this type has every field of the type. */
type Complete<T> = T extends readonly (infer U)[]
  ? Complete<U>[]
  : T extends object
    ? { [K in keyof T]-?: Complete<NonNullable<T[K]>> }
    : T;

const conditions = [
  {
    type: 'Ready',
    status: 'False' as const,
    severity: 'Warning' as const,
    lastTransitionTime: '2026-11-22T05:01:02Z',
    reason: 'R',
    message: 'm',
  },
];
const objectRef = {
  kind: 'Node',
  namespace: 'ns',
  name: 'n',
  uid: 'u',
  apiVersion: 'v1',
  resourceVersion: '1',
  fieldPath: 'spec',
};
const ownerRef = { apiVersion: 'v1', kind: 'K', name: 'o', uid: 'u', controller: true, blockOwnerDeletion: true };
const selector = {
  matchLabels: { a: 'b' },
  matchExpressions: [{ key: 'k', operator: 'In' as const, values: ['v'] }],
};

const machineSpec: Complete<NonNullable<Machine['spec']>> = {
  metadata: {
    labels: { a: 'b' },
    annotations: { c: 'd' },
    name: 'n',
    generateName: 'g-',
    namespace: 'ns',
    ownerReferences: [ownerRef],
  },
  lifecycleHooks: {
    preDrain: [{ name: 'Hook', owner: 'someone' }],
    preTerminate: [{ name: 'example.com/Hook', owner: 'someone' }],
  },
  taints: [{ key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2026-11-22T05:01:02Z' }],
  providerSpec: { value: { anything: { nested: [1, 2] } } },
  providerID: 'aws:///us-east-1a/i-1',
  authoritativeAPI: 'MachineAPI',
};

const fullMachine: Complete<Machine> = {
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'ns' } as Complete<Machine['metadata']>,
  spec: machineSpec,
  status: {
    nodeRef: objectRef,
    lastUpdated: '2026-11-22T05:01:02Z',
    errorReason: 'CreateError',
    errorMessage: 'boom',
    providerStatus: { instanceId: 'i-1' },
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    lastOperation: { description: 'd', lastUpdated: '2026-11-22T05:01:02Z', state: 's', type: 't' },
    phase: 'Running',
    conditions,
    authoritativeAPI: 'MachineAPI',
    synchronizedAPI: 'MachineAPI',
    synchronizedGeneration: 3,
  },
};

const fullMachineSet: Complete<MachineSet> = {
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineSet',
  metadata: { name: 'ms', namespace: 'ns' } as Complete<MachineSet['metadata']>,
  spec: {
    replicas: 3,
    minReadySeconds: 10,
    deletePolicy: 'Oldest',
    selector,
    template: { metadata: { labels: { a: 'b' }, annotations: { c: 'd' } }, spec: machineSpec },
    authoritativeAPI: 'MachineAPI',
  },
  status: {
    replicas: 3,
    fullyLabeledReplicas: 3,
    readyReplicas: 2,
    availableReplicas: 1,
    observedGeneration: 4,
    errorReason: 'InvalidConfiguration',
    errorMessage: 'bad',
    labelSelector: 'a=b',
    conditions,
    authoritativeAPI: 'Migrating',
    synchronizedAPI: 'ClusterAPI',
    synchronizedGeneration: 2,
  },
};

const fullMhc: Complete<MachineHealthCheck> = {
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineHealthCheck',
  metadata: { name: 'mhc', namespace: 'ns' } as Complete<MachineHealthCheck['metadata']>,
  spec: {
    selector,
    unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '300s' }],
    maxUnhealthy: '40%',
    nodeStartupTimeout: '10m',
    remediationTemplate: objectRef,
  },
  status: { expectedMachines: 3, currentHealthy: 2, remediationsAllowed: 1, conditions },
};

/** Structural-schema rules (apiextensions v1) that our CRDs must keep; returns the violations found. */
function structuralProblems(s: Schema, path: string, root = false): string[] {
  const out: string[] = [];
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (intOrString) {
    if (s.type !== undefined) out.push(`${path}: int-or-string must not set type`);
    const anyOf = s.anyOf?.map((x) => x.type);
    if (anyOf !== undefined && JSON.stringify(anyOf) !== '["integer","string"]')
      out.push(`${path}: int-or-string anyOf must be integer|string`);
  } else {
    if (typeof s.type !== 'string') out.push(`${path}: missing type`);
    if (s.anyOf || s.allOf || s.oneOf || s.not)
      out.push(`${path}: anyOf/allOf/oneOf/not only allowed for int-or-string`);
  }
  if (s.properties && s.additionalProperties !== undefined)
    out.push(`${path}: properties and additionalProperties together`);
  if (s.type === 'array' && !s.items) out.push(`${path}: array without items`);
  if ((s.properties || s.additionalProperties) && s.type !== 'object') out.push(`${path}: properties on a non-object`);
  if (s.required)
    for (const r of s.required) if (!s.properties?.[r]) out.push(`${path}: required ${r} is not a property`);
  if (s['x-kubernetes-list-map-keys']) {
    for (const k of s['x-kubernetes-list-map-keys'])
      if (!s.items?.required?.includes(k)) out.push(`${path}: map key ${k} must be required`);
  }
  if (s.pattern !== undefined) {
    try {
      // kube-apiserver compiles patterns with Go's RE2, and so does the local control plane.
      RE2JS.compile(s.pattern);
    } catch {
      out.push(`${path}: pattern does not compile`);
    }
  }
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (root && k === 'metadata') {
      if (JSON.stringify(v) !== '{"type":"object"}') out.push(`${path}.metadata: must be exactly {type: object}`);
      continue;
    }
    out.push(...structuralProblems(v, `${path}.${k}`));
  }
  if (typeof s.additionalProperties === 'object') out.push(...structuralProblems(s.additionalProperties, `${path}[*]`));
  if (s.items) out.push(...structuralProblems(s.items, `${path}[]`));
  return out;
}

/** Each leaf path of `value` that the schema does not describe with a compatible type. */
function uncovered(value: unknown, s: Schema | undefined, path: string): string[] {
  if (!s) return [`${path}: not in the schema`];
  if (s['x-kubernetes-preserve-unknown-fields'] === true && !s.properties) return [];
  if (value === null) return s.nullable ? [] : [`${path}: null but not nullable`];
  if (Array.isArray(value)) {
    if (s.type !== 'array') return [`${path}: array but schema type ${s.type}`];
    return value.flatMap((v, i) => uncovered(v, s.items, `${path}[${i}]`));
  }
  switch (typeof value) {
    case 'object': {
      if (s.type !== 'object') return [`${path}: object but schema type ${s.type}`];
      return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
        const sub =
          s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
        return uncovered(v, sub, `${path}.${k}`);
      });
    }
    case 'string':
      return s.type === 'string' || s['x-kubernetes-int-or-string']
        ? []
        : [`${path}: string but schema type ${s.type}`];
    case 'number':
      return s.type === 'integer' || s.type === 'number' || s['x-kubernetes-int-or-string']
        ? []
        : [`${path}: number but schema type ${s.type}`];
    case 'boolean':
      return s.type === 'boolean' ? [] : [`${path}: boolean but schema type ${s.type}`];
    default:
      return [`${path}: unexpected ${typeof value}`];
  }
}

/**
 * The field of kube-apiserver's "some validation rules were not checked" cause, which follows a structural failure
 * (a required, unsupported, too long or mistyped value) in a schema with CEL rules: no field path, shown as <nil>.
 */
const NOT_CHECKED = '<nil>';

/** Walks a dotted path of property names. */
function at(s: Schema, path: string): Schema {
  let cur: Schema | undefined = s;
  for (const part of path.split('.')) {
    cur = part === '[]' ? cur?.items : cur?.properties?.[part];
    if (!cur) throw new Error(`schema has no ${path}`);
  }
  return cur;
}

function withoutMetadataAndTypeMeta(obj: Record<string, unknown>): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

describe('machine.openshift.io CRDs (manifests/crds)', () => {
  it('are exactly the three kinds, in operator-style file names', () => {
    expect(files).to.deep.equal([
      '0000_10_machine.openshift.io_machinehealthchecks.yaml',
      '0000_10_machine.openshift.io_machines.yaml',
      '0000_10_machine.openshift.io_machinesets.yaml',
    ]);
  });

  for (const [file, crd] of crds) {
    describe(file, () => {
      it('is a v1 CRD for a namespaced v1beta1 kind in machine.openshift.io, served and stored', () => {
        expect(crd.apiVersion).to.equal('apiextensions.k8s.io/v1');
        expect(crd.kind).to.equal('CustomResourceDefinition');
        expect(crd.spec.group).to.equal('machine.openshift.io');
        expect(crd.metadata.name).to.equal(`${crd.spec.names.plural}.machine.openshift.io`);
        expect(crd.spec.scope).to.equal('Namespaced');
        expect(crd.spec.versions).to.have.length(1);
        expect(crd.spec.versions[0]).to.include({ name: 'v1beta1', served: true, storage: true });
        expect(crd.spec.names.listKind).to.equal(`${crd.spec.names.kind}List`);
        // openshift/api gives these kinds no categories.
        expect(crd.spec.names.categories).to.equal(undefined);
      });

      it('has a structural schema', () => {
        expect(structuralProblems(crd.spec.versions[0]!.schema.openAPIV3Schema, '', true)).to.deep.equal([]);
      });

      it("declares only openshift/api's spec fields: settings beyond the reference live in annotations or providerSpec.value", () => {
        // The machine-api-operator installs openshift/api's CRDs and prunes every other spec field, so a setting
        // added here would work locally and vanish under the operator.
        const openshiftApiSpecFields: Record<string, string[]> = {
          Machine: ['authoritativeAPI', 'lifecycleHooks', 'metadata', 'providerID', 'providerSpec', 'taints'],
          MachineSet: ['authoritativeAPI', 'deletePolicy', 'minReadySeconds', 'replicas', 'selector', 'template'],
          MachineHealthCheck: [
            'maxUnhealthy',
            'nodeStartupTimeout',
            'remediationTemplate',
            'selector',
            'unhealthyConditions',
          ],
        };
        const spec = at(crd.spec.versions[0]!.schema.openAPIV3Schema, 'spec');
        expect(Object.keys(spec.properties ?? {}).sort()).to.deep.equal(openshiftApiSpecFields[crd.spec.names.kind]);
        if (crd.spec.names.kind === 'MachineSet')
          expect(Object.keys(at(spec, 'template.spec').properties ?? {}).sort()).to.deep.equal(
            openshiftApiSpecFields.Machine,
          );
      });

      it('has the status subresource', () => {
        expect(crd.spec.versions[0]!.subresources?.status).to.deep.equal({});
      });

      it("keeps status.conditions a list-type map keyed by type, each with lastTransitionTime, status and type, as openshift/api's", () => {
        const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
        expect(at(schema, 'status.conditions')).to.include({ 'x-kubernetes-list-type': 'map' });
        expect(at(schema, 'status.conditions')['x-kubernetes-list-map-keys']).to.deep.equal(['type']);
        expect(at(schema, 'status.conditions.[]').required).to.deep.equal(['lastTransitionTime', 'status', 'type']);
        const obj = (conds: unknown[]) => ({ metadata: { name: 'x' }, spec: {}, status: { conditions: conds } });
        const c = { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-22T05:01:02Z' };
        expect(applySchema(obj([c]), schema).causes).to.deep.equal([]);
        expect(applySchema(obj([c, c]), schema).causes.map((x) => x.type)).to.include('FieldValueDuplicate');
        const { lastTransitionTime: _t, ...noTime } = c;
        expect(applySchema(obj([noTime]), schema).causes.map((x) => x.field)).to.deep.equal(
          crd.spec.names.kind === 'MachineHealthCheck'
            ? ['status.conditions[0].lastTransitionTime']
            : ['status.conditions[0].lastTransitionTime', NOT_CHECKED],
        );
      });
    });
  }

  describe('structural check', () => {
    it('catches what it is meant to catch', () => {
      expect(structuralProblems({ type: 'object', properties: { a: {} } }, '')).to.deep.equal(['.a: missing type']);
      expect(structuralProblems({ type: 'array' }, '')).to.deep.equal([': array without items']);
      expect(structuralProblems({ type: 'object', required: ['x'] }, '')).to.deep.equal([
        ': required x is not a property',
      ]);
      expect(structuralProblems({ 'x-kubernetes-int-or-string': true, type: 'string' }, '')).to.have.length(1);
    });

    it('coverage check reports fields the schema lacks', () => {
      expect(
        uncovered({ a: { b: 1 } }, { type: 'object', properties: { a: { type: 'object', properties: {} } } }, ''),
      ).to.deep.equal(['.a.b: not in the schema']);
    });
  });

  for (const kind of ['Machine', 'MachineSet']) {
    describe(`${kind}: the MachineAPIMigration status fields and their CEL rules`, () => {
      const schema = schemaFor(kind);
      const obj = (status: object) => ({ metadata: { name: 'x' }, spec: { selector: {} }, status });
      const update = (from: object, to: object) => applySchema(obj(to), schema, obj(from)).causes;

      it('has status.synchronizedAPI (MachineAPI or ClusterAPI) beside synchronizedGeneration', () => {
        expect(at(schema, 'status.synchronizedAPI')).to.include({ type: 'string' });
        expect(at(schema, 'status.synchronizedAPI').enum).to.deep.equal(['MachineAPI', 'ClusterAPI']);
        expect(at(schema, 'status.synchronizedGeneration')).to.include({
          type: 'integer',
          format: 'int64',
          minimum: 0,
        });
      });

      it('refuses authoritativeAPI MachineAPI -> ClusterAPI without passing through Migrating', () => {
        expect(update({ authoritativeAPI: 'MachineAPI' }, { authoritativeAPI: 'ClusterAPI' })).to.deep.equal([
          {
            type: 'FieldValueInvalid',
            field: 'status.authoritativeAPI',
            message:
              'Invalid value: "string": The authoritativeAPI field must not transition directly from MachineAPI to ClusterAPI or vice versa. It must transition through Migrating.',
          },
        ]);
        expect(update({ authoritativeAPI: 'MachineAPI' }, { authoritativeAPI: 'Migrating' })).to.deep.equal([]);
        expect(update({ authoritativeAPI: 'Migrating' }, { authoritativeAPI: 'ClusterAPI' })).to.deep.equal([]);
        expect(applySchema(obj({ authoritativeAPI: 'ClusterAPI' }), schema).causes).to.deep.equal([]);
      });

      it('refuses a decreasing synchronizedGeneration unless authoritativeAPI leaves Migrating', () => {
        const from = { authoritativeAPI: 'MachineAPI', synchronizedGeneration: 4 };
        expect(update(from, { authoritativeAPI: 'MachineAPI', synchronizedGeneration: 3 })).to.deep.equal([
          {
            type: 'FieldValueInvalid',
            field: 'status.synchronizedGeneration',
            message:
              'Invalid value: "object": synchronizedGeneration must not decrease unless authoritativeAPI is transitioning from Migrating to another value',
          },
        ]);
        const migrating = { authoritativeAPI: 'Migrating', synchronizedGeneration: 4 };
        expect(update(migrating, { authoritativeAPI: 'ClusterAPI', synchronizedGeneration: 1 })).to.deep.equal([]);
      });

      it('refuses removing status.authoritativeAPI once set', () => {
        expect(update({ authoritativeAPI: 'MachineAPI' }, { phase: 'Running' })).to.deep.equal([
          {
            type: 'FieldValueInvalid',
            field: 'status',
            message: 'Invalid value: "object": authoritativeAPI may not be removed once set',
          },
        ]);
      });
    });
  }

  describe('Machine', () => {
    const schema = schemaFor('Machine');
    const crd = crdFor('Machine');

    it('describes every field of the Machine type', () => {
      expect(uncovered(withoutMetadataAndTypeMeta(fullMachine), schema, '')).to.deep.equal([]);
    });

    it('accepts a fully populated Machine unchanged (nothing pruned)', () => {
      const { object, causes } = applySchema(fullMachine, schema);
      expect(causes).to.deep.equal([]);
      expect(object).to.deep.equal(fullMachine);
    });

    it('keeps unknown fields inside providerSpec.value and providerStatus, and drops a null there (not nullable, as in openshift/api)', () => {
      const value = { a: { b: [{ c: 1 }] }, z: null };
      const m = { metadata: { name: 'm' }, spec: { providerSpec: { value } }, status: { providerStatus: value } };
      const { object, causes } = applySchema(m, schema);
      expect(causes).to.deep.equal([]);
      expect((object as Machine).spec?.providerSpec?.value).to.deep.equal(value);
      expect((object as Machine).status?.providerStatus).to.deep.equal(value);
      const nulled = applySchema({ metadata: { name: 'm' }, spec: { providerSpec: { value: null } } }, schema);
      expect(nulled.causes).to.deep.equal([]);
      expect((nulled.object as Machine).spec?.providerSpec).to.deep.equal({});
    });

    it('defaults spec.authoritativeAPI to MachineAPI and restricts both authoritativeAPI fields to their enums', () => {
      expect(at(schema, 'spec.authoritativeAPI')).to.include({ default: 'MachineAPI' });
      expect(at(schema, 'spec.authoritativeAPI').enum).to.deep.equal(['MachineAPI', 'ClusterAPI']);
      expect(at(schema, 'status.authoritativeAPI').enum).to.deep.equal(['MachineAPI', 'ClusterAPI', 'Migrating']);
      const { object } = applySchema({ metadata: { name: 'm' }, spec: {} }, schema);
      expect((object as Machine).spec?.authoritativeAPI).to.equal('MachineAPI');
      expect(
        applySchema({ metadata: { name: 'm' }, spec: { authoritativeAPI: 'Other' } }, schema).causes.map(
          (c) => c.field,
        ),
      ).to.deep.equal(['spec.authoritativeAPI', NOT_CHECKED]);
    });

    it('validates lifecycle hook names and owners as openshift/api does', () => {
      const hook = at(schema, 'spec.lifecycleHooks.preDrain');
      expect(hook['x-kubernetes-list-type']).to.equal('map');
      expect(hook['x-kubernetes-list-map-keys']).to.deep.equal(['name']);
      expect(at(schema, 'spec.lifecycleHooks.preTerminate.[].name')).to.include({ minLength: 3, maxLength: 256 });
      expect(at(schema, 'spec.lifecycleHooks.preTerminate.[].owner')).to.include({ minLength: 3, maxLength: 512 });
      const pattern = RE2JS.compile(at(schema, 'spec.lifecycleHooks.preDrain.[].name').pattern!);
      for (const ok of ['MigrateImportantApp', 'example.com/MyHook', 'abc'])
        expect(pattern.test(ok), ok).to.equal(true);
      for (const bad of ['-bad', 'Example.com/x', 'a/b/c', 'has space']) expect(pattern.test(bad), bad).to.equal(false);
      const hooks = (preDrain: unknown) => ({ metadata: { name: 'm' }, spec: { lifecycleHooks: { preDrain } } });
      expect(applySchema(hooks([{ name: 'ab', owner: 'someone' }]), schema).causes.map((c) => c.field)).to.deep.equal([
        'spec.lifecycleHooks.preDrain[0].name',
      ]);
      expect(applySchema(hooks([{ name: 'Hook' }]), schema).causes.map((c) => c.field)).to.deep.equal([
        'spec.lifecycleHooks.preDrain[0].owner',
        NOT_CHECKED,
      ]);
    });

    it('requires a key and an effect on taints, an atomic list; the effect is free text in openshift/api (the webhook judges it)', () => {
      expect(at(schema, 'spec.taints.[]').required).to.have.members(['key', 'effect']);
      expect(at(schema, 'spec.taints')['x-kubernetes-list-type']).to.equal('atomic');
      expect(at(schema, 'spec.taints.[].effect').enum).to.equal(undefined);
    });

    it('shows the OpenShift printer columns', () => {
      expect(
        crd.spec.versions[0]!.additionalPrinterColumns!.map(({ name, type, jsonPath, priority }) => ({
          name,
          type,
          jsonPath,
          priority,
        })),
      ).to.deep.equal([
        { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: undefined },
        {
          name: 'Type',
          type: 'string',
          jsonPath: ".metadata.labels['machine\\.openshift\\.io/instance-type']",
          priority: undefined,
        },
        {
          name: 'Region',
          type: 'string',
          jsonPath: ".metadata.labels['machine\\.openshift\\.io/region']",
          priority: undefined,
        },
        {
          name: 'Zone',
          type: 'string',
          jsonPath: ".metadata.labels['machine\\.openshift\\.io/zone']",
          priority: undefined,
        },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: undefined },
        { name: 'Node', type: 'string', jsonPath: '.status.nodeRef.name', priority: 1 },
        { name: 'ProviderID', type: 'string', jsonPath: '.spec.providerID', priority: 1 },
        {
          name: 'State',
          type: 'string',
          jsonPath: ".metadata.annotations['machine\\.openshift\\.io/instance-state']",
          priority: 1,
        },
      ]);
    });

    it('has no short name (as openshift/api) and no scale subresource', () => {
      expect(crd.spec.names).to.include({ plural: 'machines', singular: 'machine', kind: 'Machine' });
      expect(crd.spec.names.shortNames).to.equal(undefined);
      expect(crd.spec.versions[0]!.subresources?.scale).to.equal(undefined);
    });
  });

  describe('MachineSet', () => {
    const schema = schemaFor('MachineSet');
    const crd = crdFor('MachineSet');

    it('describes every field of the MachineSet type', () => {
      expect(uncovered(withoutMetadataAndTypeMeta(fullMachineSet), schema, '')).to.deep.equal([]);
    });

    it('accepts a fully populated MachineSet unchanged', () => {
      const { object, causes } = applySchema(fullMachineSet, schema);
      expect(causes).to.deep.equal([]);
      expect(object).to.deep.equal(fullMachineSet);
    });

    it('defaults replicas to 1 and allows 0; like openshift/api it leaves negatives and a missing selector to the webhook', () => {
      expect(at(schema, 'spec.replicas')).to.include({ default: 1, type: 'integer', format: 'int32' });
      expect(at(schema, 'spec.replicas').minimum).to.equal(undefined);
      expect(at(schema, 'spec').required).to.equal(undefined);
      const ms = (spec: object) => ({ metadata: { name: 'ms' }, spec });
      const defaulted = applySchema(ms({ selector: {} }), schema);
      expect(defaulted.causes).to.deep.equal([]);
      expect((defaulted.object as MachineSet).spec?.replicas).to.equal(1);
      expect((applySchema(ms({ selector: {}, replicas: 0 }), schema).object as MachineSet).spec?.replicas).to.equal(0);
      expect(applySchema(ms({ replicas: 1 }), schema).causes).to.deep.equal([]);
    });

    it('restricts deletePolicy to Random, Newest and Oldest', () => {
      expect(at(schema, 'spec.deletePolicy').enum).to.deep.equal(['Random', 'Newest', 'Oldest']);
    });

    it('has the scale subresource wired to spec.replicas, status.replicas and status.labelSelector', () => {
      expect(crd.spec.versions[0]!.subresources?.scale).to.deep.equal({
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.labelSelector',
      });
      expect(at(schema, 'status.labelSelector').type).to.equal('string');
    });

    it('shows Desired, Current, Ready, Available (a string column in openshift/api) and Age, and has no short name', () => {
      expect(
        crd.spec.versions[0]!.additionalPrinterColumns!.map(({ name, type, jsonPath }) => [name, type, jsonPath]),
      ).to.deep.equal([
        ['Desired', 'integer', '.spec.replicas'],
        ['Current', 'integer', '.status.replicas'],
        ['Ready', 'integer', '.status.readyReplicas'],
        ['Available', 'string', '.status.availableReplicas'],
        ['Age', 'date', '.metadata.creationTimestamp'],
      ]);
      expect(crd.spec.names.shortNames).to.equal(undefined);
    });
  });

  describe('MachineHealthCheck', () => {
    const schema = schemaFor('MachineHealthCheck');
    const crd = crdFor('MachineHealthCheck');
    const mhc = (spec: object) => ({
      metadata: { name: 'mhc' },
      spec: { selector: {}, unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '5m' }], ...spec },
    });
    const causes = (spec: object) => applySchema(mhc(spec), schema as JSONSchemaProps).causes.map((c) => c.field);

    it('describes every field of the MachineHealthCheck type', () => {
      expect(uncovered(withoutMetadataAndTypeMeta(fullMhc), schema, '')).to.deep.equal([]);
    });

    it('accepts a fully populated MachineHealthCheck unchanged', () => {
      const { object, causes: c } = applySchema(fullMhc, schema);
      expect(c).to.deep.equal([]);
      expect(object).to.deep.equal(fullMhc);
    });

    it('defaults maxUnhealthy to "100%" and nodeStartupTimeout to "10m"', () => {
      const { object } = applySchema({ metadata: { name: 'mhc' }, spec: { selector: {} } }, schema);
      expect((object as MachineHealthCheck).spec).to.include({ maxUnhealthy: '100%', nodeStartupTimeout: '10m' });
    });

    it('accepts maxUnhealthy as an int, an integer string or a percentage up to 100%', () => {
      for (const v of [0, 3, '3', '0%', '40%', '100%'])
        expect(causes({ maxUnhealthy: v }), String(v)).to.deep.equal([]);
      for (const v of ['101%', '1.5', '40 %', 'abc', '-1'])
        expect(causes({ maxUnhealthy: v }), v).to.deep.equal(['spec.maxUnhealthy']);
      expect(at(schema, 'spec.maxUnhealthy')['x-kubernetes-int-or-string']).to.equal(true);
    });

    it('accepts Go durations (and "0" for nodeStartupTimeout) with the patterns of openshift/api', () => {
      for (const v of ['0', '10m', '1h30m', '1.5h', '300ms', '10µs', '10us'])
        expect(causes({ nodeStartupTimeout: v }), v).to.deep.equal([]);
      for (const v of ['', '10', '1d', 'm'])
        expect(causes({ nodeStartupTimeout: v }), v).to.deep.equal(['spec.nodeStartupTimeout']);
      // openshift/api's nodeStartupTimeout pattern anchors "^" to its first alternative only, so a value that starts
      // with 0 or ends in a duration passes the schema, as it does on a cluster.
      for (const v of ['0abc', 'abc10m']) expect(causes({ nodeStartupTimeout: v }), v).to.deep.equal([]);
      const withTimeout = (timeout: string) =>
        causes({ unhealthyConditions: [{ type: 'Ready', status: 'False', timeout }] });
      expect(withTimeout('300s')).to.deep.equal([]);
      expect(withTimeout('0')).to.deep.equal(['spec.unhealthyConditions[0].timeout']);
      expect(withTimeout('5 m')).to.deep.equal(['spec.unhealthyConditions[0].timeout']);
    });

    it('needs at least one unhealthy condition, with a non-empty type and status when given', () => {
      expect(causes({ unhealthyConditions: [] })).to.deep.equal(['spec.unhealthyConditions']);
      expect(causes({ unhealthyConditions: [{ type: 'Ready', status: '', timeout: '1m' }] })).to.deep.equal([
        'spec.unhealthyConditions[0].status',
      ]);
      expect(at(schema, 'spec.unhealthyConditions.[]').required).to.equal(undefined);
    });

    it('shows MaxUnhealthy, ExpectedMachines and CurrentHealthy, with short names mhc and mhcs', () => {
      expect(
        crd.spec.versions[0]!.additionalPrinterColumns!.map(({ name, type, jsonPath }) => [name, type, jsonPath]),
      ).to.deep.equal([
        ['MaxUnhealthy', 'string', '.spec.maxUnhealthy'],
        ['ExpectedMachines', 'integer', '.status.expectedMachines'],
        ['CurrentHealthy', 'integer', '.status.currentHealthy'],
      ]);
      expect(crd.spec.names.shortNames).to.deep.equal(['mhc', 'mhcs']);
    });
  });
});

describe('generic samples (manifests/samples/generic)', () => {
  const cases: Array<[string, string]> = [
    ['machine.yaml', 'Machine'],
    ['machineset.yaml', 'MachineSet'],
    ['machinehealthcheck.yaml', 'MachineHealthCheck'],
  ];
  for (const [file, kind] of cases) {
    it(`${file} is a valid ${kind} with nothing pruned`, () => {
      const obj = sample(file) as Machine;
      expect(obj.apiVersion).to.equal('machine.openshift.io/v1beta1');
      expect(obj.kind).to.equal(kind);
      expect(obj.metadata.namespace).to.equal('openshift-machine-api');
      const { object, causes } = applySchema(obj, schemaFor(kind));
      expect(causes).to.deep.equal([]);
      expect(
        uncovered(withoutMetadataAndTypeMeta(obj as unknown as Record<string, unknown>), schemaFor(kind), ''),
      ).to.deep.equal([]);
      expect(object).to.deep.include({ metadata: obj.metadata });
    });
  }

  it('the MachineSet selector matches its template labels and the MHC selects those machines', () => {
    const ms = sample('machineset.yaml') as MachineSet;
    const mhc = sample('machinehealthcheck.yaml') as MachineHealthCheck;
    const labels = ms.spec!.template!.metadata!.labels!;
    for (const [k, v] of Object.entries(ms.spec!.selector.matchLabels!)) expect(labels[k]).to.equal(v);
    for (const [k, v] of Object.entries(mhc.spec!.selector.matchLabels!)) expect(labels[k]).to.equal(v);
  });

  it('the Machine carries the cluster ID label the machine controller requires', () => {
    const m = sample('machine.yaml') as Machine;
    expect(m.metadata.labels).to.have.property('machine.openshift.io/cluster-api-cluster');
    expect(m.spec?.providerSpec?.value).to.be.an('object');
  });
});
