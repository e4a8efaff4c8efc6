// What the server knows about one kind of resource: where it lives in the REST API and which of
// kube-apiserver's per-kind strategies (status subresource, generation, scale, defaults) apply.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { JSONSchemaProps } from './schema/index.js';
import type { PrinterColumn } from './table.js';

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface VersionInfo {
  name: string;
  schema?: JSONSchemaProps;
  printerColumns: PrinterColumn[];
  statusSubresource: boolean;
  scale?: ScaleSubresource;
}

/**
 * A type whose objects live in another type's storage and are converted on the way in and out, as
 * kube-apiserver serves events.k8s.io/v1 Events from the core Events' storage.
 */
export interface StorageView {
  /** The type key the objects are stored under. */
  storedTypeKey: string;
  /** The apiVersion of the stored objects. */
  storedApiVersion: string;
  /** The apiVersion the view serves. */
  viewApiVersion: string;
  toStored(obj: KubeObject): KubeObject & Record<string, unknown>;
  fromStored(obj: KubeObject): KubeObject & Record<string, unknown>;
}

/** Extra field selectors a kind supports beyond metadata.name and metadata.namespace. */
export type FieldGetter = (obj: KubeObject) => string | undefined;

export interface ResourceType {
  group: string;
  /** Served versions, the preferred one first. */
  versions: VersionInfo[];
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Served from a CustomResourceDefinition (JSON merge patch only, schema validation, pruning). */
  custom: boolean;
  /** 'spec': generation bumps when .spec changes; 'content': when anything outside metadata (and status) changes. */
  generation: 'none' | 'spec' | 'content';
  /** What happens to .status on create (built-ins differ: nodes keep it, pods start Pending). */
  statusOnCreate: 'keep' | 'drop' | ((obj: KubeObject) => unknown);
  /** kube returns the deleted object for some kinds and a Status for others. */
  returnDeletedObject: boolean;
  /** Whether a PUT without metadata.resourceVersion is accepted (false for custom resources). */
  allowUnconditionalUpdate: boolean;
  fieldSelectors: Record<string, FieldGetter>;
  /** Subresources other than status and scale, e.g. pods/eviction. */
  extraSubresources: string[];
  /**
   * A review kind (SelfSubjectAccessReview and the like): POST only, answered with the object and its status,
   * never stored. Discovery lists only `create` for it.
   */
  review?: true;
  /** Set when the objects are another type's, seen through a conversion. */
  view?: StorageView;
}

export function typeKeyOf(t: { group: string; plural: string }): string {
  return `${t.group}/${t.plural}`;
}

/** Where a type's objects are stored: its own key, or the key of the type it is a view of. */
export function storageKeyOf(t: ResourceType): string {
  return t.view?.storedTypeKey ?? typeKeyOf(t);
}

/** An incoming object in a view's form converted to the stored form (unchanged when already stored form, or not a view). */
export function toStoredForm<T extends KubeObject>(t: ResourceType, obj: T): T {
  const view = t.view;
  return view && obj.apiVersion === view.viewApiVersion ? (view.toStored(obj) as unknown as T) : obj;
}

export function apiVersionFor(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

export function versionInfo(t: ResourceType, version: string): VersionInfo | undefined {
  return t.versions.find((v) => v.name === version);
}

export function hasStatusSubresource(t: ResourceType): boolean {
  return t.versions.some((v) => v.statusSubresource);
}
