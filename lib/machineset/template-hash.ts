// The hash of a MachineSet's template that each Machine it makes carries in its template-hash label: a Machine
// whose label differs from the set's current hash was made from an older template.
//
// What goes in: the template's spec (providerSpec included) and its labels and annotations, for those are what a
// new Machine gets. What stays out, so that no rollout starts without a change a user made:
//  - spec.replicas and everything else outside the template;
//  - the template's other metadata (name, generateName, a `creationTimestamp: null` some clients write);
//  - spec.authoritativeAPI, which the CRD defaults and the Machine API migration sets, not the admin;
//  - spec.providerID, which belongs to one instance and has no meaning in a template;
//  - our own template-hash label and rollout-restart annotation, should a template carry them.
// The hash is the set's, stamped on a Machine when it is made and never recomputed from the Machine, so what the
// Machine webhook and the provider write on a Machine (the cluster label, providerSpec defaults, providerID, zone
// labels) cannot make it outdated. The providerSpec defaults the MachineSet webhook writes are in the stored
// template from its creation on, and every edit (patch, apply, edit) keeps them, so they are hashed as stored.
// Equal meaning hashes equal: key order is ignored, and a field that is null, "", {} or [] hashes as absent
// (Go's omitempty writes none of them, and our own clients may).
import { createHash } from 'node:crypto';
import { MachineTemplateHashLabel, RolloutRestartAnnotation } from '../apis/constants.js';
import type { MachineSet } from '../apis/machine-types.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** The value with sorted keys and empty fields dropped (array items are kept where they are: order means something). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v).sort()) {
    const c = canonical(v[key]);
    if (!isEmpty(c)) out[key] = c;
  }
  return out;
}

function without(map: Record<string, string> | undefined, key: string): Record<string, string> | undefined {
  if (!map || !Object.hasOwn(map, key)) return map;
  const { [key]: _dropped, ...rest } = map;
  return rest;
}

/** What of the template decides how a new Machine is made. */
export function templateHashInput(ms: MachineSet): unknown {
  const template = ms.spec?.template ?? {};
  const { authoritativeAPI: _a, providerID: _p, ...spec } = template.spec ?? {};
  return canonical({
    labels: without(template.metadata?.labels, MachineTemplateHashLabel),
    annotations: without(template.metadata?.annotations, RolloutRestartAnnotation),
    spec,
  });
}

/** A short, stable label value: 12 hex digits of a SHA-256 of the canonical template. */
export function templateHash(ms: MachineSet): string {
  return createHash('sha256')
    .update(JSON.stringify(templateHashInput(ms)))
    .digest('hex')
    .slice(0, 12);
}
