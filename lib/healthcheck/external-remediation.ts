// External remediation: when an MHC names a remediation template, the remedy
// for an unhealthy machine is a request object cloned from that template — kind = template kind minus
// "Template", name = the machine's — which an external controller (e.g. metal3) acts on. The kinds are not
// known at build time, so they are handled as unstructured objects through generic Resource descriptors.
import { TemplateClonedFromGroupKindAnnotation, TemplateClonedFromNameAnnotation } from '../apis/constants.js';
import { MACHINE_API_GROUP_VERSION, type Machine } from '../apis/machine-types.js';
import type { KubeObject, ObjectReference } from '../apis/meta.js';
import { defineResource, type Resource } from '../client/resources.js';

export type UnstructuredObject = KubeObject & Record<string, unknown>;

/** apimachinery's UnsafeGuessKindToResource: lower-case, then the English plural. */
export function guessPlural(kind: string): string {
  const k = kind.toLowerCase();
  if (k === '') return k;
  if (k.endsWith('s')) return `${k}es`;
  if (k.endsWith('y')) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** How the REST path of a kind is found; the default guesses the plural as kube's RESTMapper fallback does. */
export type ResourceResolver = (apiVersion: string, kind: string) => Resource<UnstructuredObject>;

export const guessResource: ResourceResolver = (apiVersion, kind) => {
  const { group, version } = splitApiVersion(apiVersion);
  return defineResource<UnstructuredObject>({ group, version, kind, plural: guessPlural(kind), namespaced: true });
};

/** "Metal3RemediationTemplate" → "Metal3Remediation". */
export function requestKindFor(templateKind: string): string {
  return templateKind.endsWith('Template') ? templateKind.slice(0, -'Template'.length) : templateKind;
}

/** schema.GroupKind.String(): "Kind.group", or "Kind" for the core group. */
export function groupKindString(apiVersion: string, kind: string): string {
  const { group } = splitApiVersion(apiVersion);
  return group === '' ? kind : `${kind}.${group}`;
}

export class RemediationTemplateError extends Error {
  override readonly name = 'RemediationTemplateError';
}

/** The request object to create for `machine`, cloned from `template` (a *Template object). */
export function buildRemediationRequest(
  template: UnstructuredObject,
  ref: ObjectReference,
  machine: Machine,
): UnstructuredObject {
  const spec = template.spec as Record<string, unknown> | undefined;
  const inner = spec?.template as Record<string, unknown> | undefined;
  if (!inner || typeof inner !== 'object') {
    throw new RemediationTemplateError(
      `missing Spec.Template on ${template.kind ?? ref.kind ?? ''} ${template.metadata.name ?? ref.name ?? ''}`,
    );
  }
  const clone = structuredClone<Record<string, unknown>>(inner);
  const meta = { ...((clone.metadata as KubeObject['metadata'] | undefined) ?? {}) };
  delete meta.resourceVersion;
  delete meta.finalizers;
  delete meta.uid;
  delete (meta as Record<string, unknown>).selfLink;
  meta.name = machine.metadata.name;
  meta.namespace = machine.metadata.namespace;
  meta.annotations = {
    ...meta.annotations,
    [TemplateClonedFromNameAnnotation]: ref.name ?? '',
    [TemplateClonedFromGroupKindAnnotation]: groupKindString(ref.apiVersion ?? '', ref.kind ?? ''),
  };
  meta.ownerReferences = [
    {
      apiVersion: MACHINE_API_GROUP_VERSION,
      kind: 'Machine',
      name: machine.metadata.name ?? '',
      uid: machine.metadata.uid ?? '',
    },
  ];
  return {
    ...clone,
    apiVersion: (clone.apiVersion as string | undefined) || template.apiVersion || ref.apiVersion,
    kind: (clone.kind as string | undefined) || requestKindFor(template.kind ?? ref.kind ?? ''),
    metadata: meta,
  };
}
