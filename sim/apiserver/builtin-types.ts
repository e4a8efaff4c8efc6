// The built-in kinds the Machine API touches, with the strategies kube-apiserver applies to each.
import type { KubeObject } from '../../lib/apis/meta.js';
import { EventsGroup, eventsV1FieldSelectors, eventsV1View } from './event-conversion.js';
import type { FieldGetter, ResourceType, VersionInfo } from './resource-type.js';

function v(name: string, statusSubresource: boolean): VersionInfo {
  return { name, printerColumns: [], statusSubresource };
}

function str(x: unknown): string | undefined {
  if (x === undefined || x === null) return undefined;
  return typeof x === 'string' ? x : JSON.stringify(x);
}

function path(...keys: string[]): FieldGetter {
  return (obj) => {
    let cur: unknown = obj;
    for (const k of keys) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[k];
    }
    return str(cur);
  };
}

interface BuiltinSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  generation?: ResourceType['generation'];
  statusOnCreate?: ResourceType['statusOnCreate'];
  returnDeletedObject?: boolean;
  fieldSelectors?: Record<string, FieldGetter>;
  extraSubresources?: string[];
  review?: true;
}

function builtin(s: BuiltinSpec): ResourceType {
  return {
    group: s.group,
    versions: [v(s.version, s.status ?? false)],
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    custom: false,
    generation: s.generation ?? 'none',
    statusOnCreate: s.statusOnCreate ?? 'keep',
    returnDeletedObject: s.returnDeletedObject ?? false,
    allowUnconditionalUpdate: true,
    fieldSelectors: s.fieldSelectors ?? {},
    extraSubresources: s.extraSubresources ?? [],
    ...(s.review ? { review: true as const } : {}),
  };
}

const eventSelectors: Record<string, FieldGetter> = {
  'involvedObject.kind': path('involvedObject', 'kind'),
  'involvedObject.namespace': path('involvedObject', 'namespace'),
  'involvedObject.name': path('involvedObject', 'name'),
  'involvedObject.uid': path('involvedObject', 'uid'),
  'involvedObject.apiVersion': path('involvedObject', 'apiVersion'),
  'involvedObject.resourceVersion': path('involvedObject', 'resourceVersion'),
  'involvedObject.fieldPath': path('involvedObject', 'fieldPath'),
  reason: path('reason'),
  reportingComponent: path('reportingComponent'),
  source: path('source', 'component'),
  type: path('type'),
};

export const CRDGroup = 'apiextensions.k8s.io';
export const RbacGroup = 'rbac.authorization.k8s.io';
export const CRDPlural = 'customresourcedefinitions';

/** A fresh set of built-in types (the registry mutates nothing in them, but each server gets its own). */
export function builtinTypes(): ResourceType[] {
  return [
    // Asked, never stored: what kubectl auth can-i and kubectl auth whoami send.
    builtin({
      group: 'authorization.k8s.io',
      version: 'v1',
      plural: 'selfsubjectaccessreviews',
      kind: 'SelfSubjectAccessReview',
      namespaced: false,
      review: true,
    }),
    builtin({
      group: 'authorization.k8s.io',
      version: 'v1',
      plural: 'selfsubjectrulesreviews',
      kind: 'SelfSubjectRulesReview',
      namespaced: false,
      review: true,
    }),
    builtin({
      group: 'authorization.k8s.io',
      version: 'v1',
      plural: 'subjectaccessreviews',
      kind: 'SubjectAccessReview',
      namespaced: false,
      review: true,
    }),
    builtin({
      group: 'authorization.k8s.io',
      version: 'v1',
      plural: 'localsubjectaccessreviews',
      kind: 'LocalSubjectAccessReview',
      namespaced: true,
      review: true,
    }),
    builtin({
      group: 'authentication.k8s.io',
      version: 'v1',
      plural: 'selfsubjectreviews',
      kind: 'SelfSubjectReview',
      namespaced: false,
      review: true,
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      status: true,
      returnDeletedObject: true,
      statusOnCreate: () => ({ phase: 'Active' }),
      fieldSelectors: { 'status.phase': path('status', 'phase') },
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'nodes',
      kind: 'Node',
      namespaced: false,
      shortNames: ['no'],
      status: true,
      returnDeletedObject: true,
      fieldSelectors: {
        'spec.unschedulable': (o: KubeObject) =>
          String((o as { spec?: { unschedulable?: boolean } }).spec?.unschedulable ?? false),
      },
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'pods',
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      status: true,
      returnDeletedObject: true,
      statusOnCreate: () => ({ phase: 'Pending' }),
      fieldSelectors: {
        'spec.nodeName': (o) => (o as { spec?: { nodeName?: string } }).spec?.nodeName ?? '',
        'status.phase': path('status', 'phase'),
        'spec.restartPolicy': path('spec', 'restartPolicy'),
        'spec.schedulerName': path('spec', 'schedulerName'),
        'spec.serviceAccountName': path('spec', 'serviceAccountName'),
        'status.podIP': path('status', 'podIP'),
        'status.nominatedNodeName': path('status', 'nominatedNodeName'),
      },
      extraSubresources: ['eviction'],
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'secrets',
      kind: 'Secret',
      namespaced: true,
      fieldSelectors: { type: path('type') },
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      shortNames: ['cm'],
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      fieldSelectors: eventSelectors,
    }),
    // Served from the core Events' storage, converted both ways (one object, two APIs), as kube does.
    {
      ...builtin({
        group: EventsGroup,
        version: 'v1',
        plural: 'events',
        kind: 'Event',
        namespaced: true,
        shortNames: ['ev'],
        fieldSelectors: eventsV1FieldSelectors,
      }),
      view: eventsV1View,
    },
    builtin({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true }),
    // token: the TokenRequest subresource (`kubectl create token`).
    builtin({
      group: '',
      version: 'v1',
      plural: 'serviceaccounts',
      kind: 'ServiceAccount',
      namespaced: true,
      shortNames: ['sa'],
      extraSubresources: ['token'],
    }),
    builtin({ group: RbacGroup, version: 'v1', plural: 'roles', kind: 'Role', namespaced: true }),
    builtin({ group: RbacGroup, version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true }),
    builtin({ group: RbacGroup, version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false }),
    builtin({
      group: RbacGroup,
      version: 'v1',
      plural: 'clusterrolebindings',
      kind: 'ClusterRoleBinding',
      namespaced: false,
    }),
    builtin({
      group: 'policy',
      version: 'v1',
      plural: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      namespaced: true,
      shortNames: ['pdb'],
      status: true,
      generation: 'spec',
      statusOnCreate: 'drop',
    }),
    // Storage, for the wait for volumes to detach before an instance is terminated: the attach/detach
    // controller's VolumeAttachments, and the claims and volumes pods use.
    builtin({
      group: 'storage.k8s.io',
      version: 'v1',
      plural: 'volumeattachments',
      kind: 'VolumeAttachment',
      namespaced: false,
      status: true,
      generation: 'spec',
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'persistentvolumeclaims',
      kind: 'PersistentVolumeClaim',
      namespaced: true,
      shortNames: ['pvc'],
      status: true,
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'persistentvolumes',
      kind: 'PersistentVolume',
      namespaced: false,
      shortNames: ['pv'],
      status: true,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      plural: 'daemonsets',
      kind: 'DaemonSet',
      namespaced: true,
      shortNames: ['ds'],
      categories: ['all'],
      status: true,
      generation: 'spec',
      statusOnCreate: 'drop',
    }),
    // Webhook configurations: generation moves when the webhooks change, as in kube.
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'mutatingwebhookconfigurations',
      kind: 'MutatingWebhookConfiguration',
      namespaced: false,
      categories: ['api-extensions'],
      generation: 'content',
    }),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'validatingwebhookconfigurations',
      kind: 'ValidatingWebhookConfiguration',
      namespaced: false,
      categories: ['api-extensions'],
      generation: 'content',
    }),
    builtin({
      group: CRDGroup,
      version: 'v1',
      plural: CRDPlural,
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      status: true,
      generation: 'spec',
      statusOnCreate: 'drop',
      returnDeletedObject: true,
    }),
  ];
}
