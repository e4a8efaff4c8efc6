// What every write path is given besides the object: the request's options (dryRun, fieldValidation, the
// field manager, warnings to send back). Objects here are JSON: KubeObject metadata plus any other fields.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { FieldManagerRequest } from './field-management/index.js';

export type Obj = KubeObject & Record<string, unknown>;

export interface WriteOpts {
  dryRun?: boolean;
  /** Unknown fields of a custom resource: Strict rejects (400), Warn (the default) reports, Ignore drops silently. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Filled with warnings for the response's Warning headers. */
  warnings?: string[];
  /**
   * Who writes, for metadata.managedFields. An Update is recorded here; an Apply arrives with its
   * entries already computed (field-management applyConfiguration). Without it (the server's own
   * writes) the stored entries are kept as they are.
   */
  fieldManager?: FieldManagerRequest;
  /**
   * The object is a patch's result, not a request body: kube reports its strict decoding errors as they
   * are, where a body's are wrapped in "<Kind> in version ... cannot be handled as a <Kind>: ".
   */
  patched?: boolean;
  /** Fields the request body gave twice in one object (the last value is the one kept), for fieldValidation. */
  duplicateFields?: readonly string[];
}
