// The printer column shape shared by CRDs (additionalPrinterColumns) and the built-in kinds' tables.
import type { KubeObject } from '../../lib/apis/meta.js';

/** A CRD additionalPrinterColumns entry. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
  /**
   * Computes the cell in code instead of reading jsonPath: the built-in kinds' columns (a Node's Status, a Pod's
   * Ready) are derived values, as in kube's own printers. jsonPath then only documents where the data lives.
   */
  cell?: (obj: KubeObject, now: number) => unknown;
}

// The descriptions kube-apiserver serves for these two columns (ObjectMeta's field documentation).
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
