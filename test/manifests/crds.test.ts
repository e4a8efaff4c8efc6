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
        expect(crd.spec.names.categories).to.deep.equal(['machine-api']);
      });

      it('has a structural schema', () => {
        expect(structuralProblems(crd.spec.versions[0]!.schema.openAPIV3Schema, '', true)).to.deep.equal([]);
      });

      it('has the status subresource', () => {
        expect(crd.spec.versions[0]!.subresources?.status).to.deep.equal({});
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

    it('keeps unknown fields inside providerSpec.value and providerStatus, and accepts null there', () => {
      const value = { a: { b: [{ c: 1 }] }, z: null };
      const m = { metadata: { name: 'm' }, spec: { providerSpec: { value } }, status: { providerStatus: value } };
      const { object, causes } = applySchema(m, schema);
      expect(causes).to.deep.equal([]);
      expect((object as Machine).spec?.providerSpec?.value).to.deep.equal(value);
      expect((object as Machine).status?.providerStatus).to.deep.equal(value);
      expect(
        applySchema({ metadata: { name: 'm' }, spec: { providerSpec: { value: null } } }, schema).causes,
      ).to.deep.equal([]);
    });

    it('defaults spec.authoritativeAPI to MachineAPI and restricts both authoritativeAPI fields to their enums', () => {
      expect(at(schema, 'spec.authoritativeAPI')).to.include({ default: 'MachineAPI' });
      expect(at(schema, 'spec.authoritativeAPI').enum).to.deep.equal(['MachineAPI', 'ClusterAPI']);
      expect(at(schema, 'status.authoritativeAPI').enum).to.deep.equal(['MachineAPI', 'ClusterAPI', 'Migrating']);
      const { object } = applySchema({ metadata: { name: 'm' }, spec: {} }, schema);
      expect((object as Machine).spec?.authoritativeAPI).to.equal('MachineAPI');
      expect(
        applySchema({ metadata: { name: 'm' }, spec: { authoritativeAPI: 'Other' } }, schema).causes,
      ).to.have.length(1);
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
      expect(applySchema(hooks([{ name: 'ab', owner: 'someone' }]), schema).causes).to.have.length(1);
      expect(applySchema(hooks([{ name: 'Hook' }]), schema).causes).to.have.length(1);
    });

    it('requires a key and a valid effect on taints', () => {
      expect(at(schema, 'spec.taints.[]').required).to.have.members(['key', 'effect']);
      expect(at(schema, 'spec.taints.[].effect').enum).to.deep.equal(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
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

    it('has the short name ma and no scale subresource', () => {
      expect(crd.spec.names).to.include({ plural: 'machines', singular: 'machine', kind: 'Machine' });
      expect(crd.spec.names.shortNames).to.deep.equal(['ma']);
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

    it('defaults replicas to 1, allows 0, rejects negatives, and requires a selector', () => {
      expect(at(schema, 'spec.replicas')).to.include({ default: 1, minimum: 0, type: 'integer', format: 'int32' });
      expect(at(schema, 'spec').required).to.deep.equal(['selector']);
      const ms = (spec: object) => ({ metadata: { name: 'ms' }, spec });
      const defaulted = applySchema(ms({ selector: {} }), schema);
      expect(defaulted.causes).to.deep.equal([]);
      expect((defaulted.object as MachineSet).spec?.replicas).to.equal(1);
      expect((applySchema(ms({ selector: {}, replicas: 0 }), schema).object as MachineSet).spec?.replicas).to.equal(0);
      expect(applySchema(ms({ selector: {}, replicas: -1 }), schema).causes).to.have.length(1);
      expect(applySchema(ms({ replicas: 1 }), schema as JSONSchemaProps).causes.map((c) => c.field)).to.deep.equal([
        'spec.selector',
      ]);
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

    it('shows Desired, Current, Ready, Available and Age', () => {
      expect(
        crd.spec.versions[0]!.additionalPrinterColumns!.map(({ name, jsonPath }) => [name, jsonPath]),
      ).to.deep.equal([
        ['Desired', '.spec.replicas'],
        ['Current', '.status.replicas'],
        ['Ready', '.status.readyReplicas'],
        ['Available', '.status.availableReplicas'],
        ['Age', '.metadata.creationTimestamp'],
      ]);
      expect(crd.spec.names.shortNames).to.deep.equal(['ms']);
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

    it('accepts Go durations (and "0" for nodeStartupTimeout) and rejects anything else', () => {
      for (const v of ['0', '10m', '1h30m', '1.5h', '300ms', '10µs', '10us'])
        expect(causes({ nodeStartupTimeout: v }), v).to.deep.equal([]);
      for (const v of ['', '10', '0abc', 'abc10m', '-5m', '1d'])
        expect(causes({ nodeStartupTimeout: v }), v).to.deep.equal(['spec.nodeStartupTimeout']);
      const withTimeout = (timeout: string) =>
        causes({ unhealthyConditions: [{ type: 'Ready', status: 'False', timeout }] });
      expect(withTimeout('300s')).to.deep.equal([]);
      expect(withTimeout('0')).to.deep.equal(['spec.unhealthyConditions[0].timeout']);
      expect(withTimeout('5 m')).to.deep.equal(['spec.unhealthyConditions[0].timeout']);
    });

    it('needs at least one unhealthy condition, each with type, status and timeout', () => {
      expect(causes({ unhealthyConditions: [] })).to.deep.equal(['spec.unhealthyConditions']);
      expect(causes({ unhealthyConditions: [{ type: 'Ready', status: '', timeout: '1m' }] })).to.deep.equal([
        'spec.unhealthyConditions[0].status',
      ]);
      expect(at(schema, 'spec.unhealthyConditions.[]').required).to.have.members(['type', 'status', 'timeout']);
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
