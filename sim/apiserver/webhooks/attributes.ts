// What admission knows about one write: the request's resource, kind, operation, objects and options,
// as kube-apiserver's admission.Attributes carry them to the webhook dispatchers.
import type { ResourceType } from '../resource-type.js';
import type { Operation } from './configuration.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionAttributes {
  operation: Operation;
  /** The type the request addressed and the version it used. */
  type: ResourceType;
  version: string;
  /** The kind of `object`: the type's kind, or e.g. autoscaling/v1 Scale for the scale subresource. */
  kind: GroupVersionKind;
  /** '' when the request addressed the resource itself. */
  subresource: string;
  /** '' for cluster-scoped objects; a Namespace's own name for requests on a namespace. */
  namespace: string;
  name: string;
  /** The object being written (absent on DELETE). */
  object?: Record<string, unknown>;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: Record<string, unknown>;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions, as sent to the webhook. */
  options: Record<string, unknown>;
}

/** The identity every request to the local control plane has (one bearer token, cluster-admin). */
export const localUser = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

export function operationOptions(
  kind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions',
  dryRun: boolean,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { kind, apiVersion: 'meta.k8s.io/v1', ...(dryRun ? { dryRun: ['All'] } : {}), ...extra };
}
