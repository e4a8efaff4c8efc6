// CustomResourceDefinitions: validation of the CRD itself, the status kube-apiserver gives an
// accepted one, and the ResourceType it makes the server serve.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { StatusCause } from './errors.js';
import type { ResourceType, ScaleSubresource, VersionInfo } from './resource-type.js';
import type { JSONSchemaProps } from './schema/index.js';
import { ruleCompileCauses } from './schema/cel/crd-rules.js';
import type { PrinterColumn } from './table.js';

interface CRDVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CRDObject extends KubeObject {
  spec?: {
    group?: string;
    scope?: string;
    names?: {
      plural?: string;
      singular?: string;
      kind?: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions?: CRDVersion[];
  };
  status?: Record<string, unknown>;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function validateCrd(crd: CRDObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = crd.spec;
  const req = (field: string) => causes.push({ reason: 'FieldValueRequired', message: 'Required value', field });
  if (!spec) {
    req('spec');
    return causes;
  }
  const names = spec.names ?? {};
  if (!spec.group) req('spec.group');
  else if (!spec.group.includes('.'))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${spec.group}": should be a domain with at least one dot`,
      field: 'spec.group',
    });
  if (!names.plural) req('spec.names.plural');
  else if (!dnsLabel.test(names.plural))
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${names.plural}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`,
      field: 'spec.names.plural',
    });
  if (!names.kind) req('spec.names.kind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${spec.scope ?? ''}": supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }
  const versions = spec.versions ?? [];
  if (versions.length === 0) req('spec.versions');
  const storage = versions.filter((v) => v.storage);
  if (versions.length > 0 && storage.length !== 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(versions)}: must have exactly one version marked as storage version`,
      field: 'spec.versions',
    });
  }
  versions.forEach((v, i) => {
    if (!v.name) req(`spec.versions[${i}].name`);
    if (!v.schema?.openAPIV3Schema) req(`spec.versions[${i}].schema.openAPIV3Schema`);
    for (const c of ruleCompileCauses(v.schema?.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`))
      causes.push({ reason: c.type, message: c.message, field: c.field });
  });
  if (spec.group && names.plural && crd.metadata.name !== `${names.plural}.${spec.group}`) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${crd.metadata.name ?? ''}": must be spec.names.plural+"."+spec.group`,
      field: 'metadata.name',
    });
  }
  return causes;
}

/** The status an accepted, established CRD carries. */
export function crdStatus(crd: CRDObject, now: string): Record<string, unknown> {
  const names = crd.spec?.names ?? {};
  const kind = names.kind ?? '';
  const accepted = {
    plural: names.plural,
    singular: names.singular ?? kind.toLowerCase(),
    kind,
    listKind: names.listKind ?? `${kind}List`,
    ...(names.shortNames ? { shortNames: names.shortNames } : {}),
    ...(names.categories ? { categories: names.categories } : {}),
  };
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: accepted,
    storedVersions: (crd.spec?.versions ?? []).filter((v) => v.storage).map((v) => v.name),
  };
}

/** The ResourceType a valid CRD serves (validateCrd first). */
export function typeFromCrd(crd: CRDObject): ResourceType {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const kind = names.kind ?? '';
  const served = (spec.versions ?? []).filter((v) => v.served !== false);
  const versions: VersionInfo[] = served.map((v) => ({
    name: v.name ?? '',
    schema: v.schema?.openAPIV3Schema,
    printerColumns: v.additionalPrinterColumns ?? [],
    statusSubresource: v.subresources?.status !== undefined,
    scale: v.subresources?.scale,
  }));
  // kube prefers the highest-priority version (v1 > v1beta1 > v1alpha1); storage first is close enough
  // for our CRDs, which serve one version.
  versions.sort((a, b) => versionPriority(b.name) - versionPriority(a.name));
  return {
    group: spec.group ?? '',
    versions,
    plural: names.plural ?? '',
    singular: names.singular ?? kind.toLowerCase(),
    kind,
    listKind: names.listKind ?? `${kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    custom: true,
    generation: 'content',
    statusOnCreate: versions.some((x) => x.statusSubresource) ? 'drop' : 'keep',
    returnDeletedObject: true,
    allowUnconditionalUpdate: false,
    fieldSelectors: {},
    extraSubresources: [],
  };
}

/** Kubernetes version ordering: GA > beta > alpha, higher numbers first. */
export function versionPriority(name: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(name);
  if (!m) return 0;
  const major = Number(m[1]);
  const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  return stage * 1_000_000 + major * 1000 + minor;
}
