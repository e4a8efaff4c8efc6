// The scale subresource of custom resources that declare one: an autoscaling/v1 Scale read from and
// written to the CRD's specReplicasPath / statusReplicasPath / labelSelectorPath.
import * as E from '../errors.js';
import { cloneJson, isPlainObject } from '../json.js';
import type { Obj } from '../object-api.js';
import { versionInfo, type ScaleSubresource } from '../resource-type.js';
import { readObjectBody, isDryRun, reply, type HandlerContext } from './context.js';
import { applyPatchOfType, JsonPatchType, MergePatchType, readPatch, StrategicMergePatchType } from './patch-handler.js';

function pathParts(jsonPath: string): string[] {
  return jsonPath.replace(/^\./, '').split('.').filter((p) => p !== '');
}

function readPath(obj: unknown, jsonPath: string): unknown {
  let cur = obj;
  for (const p of pathParts(jsonPath)) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function writePath(obj: Record<string, unknown>, jsonPath: string, value: unknown): void {
  const parts = pathParts(jsonPath);
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (!isPlainObject(next)) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1];
  if (last !== undefined) cur[last] = value;
}

function scaleSpec(ctx: HandlerContext): ScaleSubresource {
  const s = versionInfo(ctx.type, ctx.version)?.scale;
  if (!s) throw E.notFoundPath();
  return s;
}

export function toScale(obj: Obj, s: ScaleSubresource): Record<string, unknown> {
  const specReplicas = readPath(obj, s.specReplicasPath);
  const statusReplicas = readPath(obj, s.statusReplicasPath);
  const selector = s.labelSelectorPath ? readPath(obj, s.labelSelectorPath) : undefined;
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, ...(typeof selector === 'string' ? { selector } : {}) },
  };
}

export async function handleGetScale(ctx: HandlerContext): Promise<void> {
  const s = scaleSpec(ctx);
  await reply(ctx, 200, toScale(ctx.api.get(ctx.type, ctx.namespace, ctx.name ?? ''), s));
}

/** PUT or PATCH of the scale: checks the Scale's resourceVersion and replicas, then writes the main resource. */
export async function handleWriteScale(ctx: HandlerContext, method: 'PUT' | 'PATCH'): Promise<void> {
  const s = scaleSpec(ctx);
  const dryRun = isDryRun(ctx.query);
  const name = ctx.name ?? '';
  const existing = ctx.api.get(ctx.type, ctx.namespace, name);
  let scale: unknown;
  if (method === 'PUT') {
    scale = await readObjectBody(ctx);
  } else {
    const { contentType, patch } = await readPatch(ctx, [JsonPatchType, MergePatchType, StrategicMergePatchType]);
    scale = applyPatchOfType(contentType === StrategicMergePatchType ? MergePatchType : contentType, toScale(existing, s), patch, 'Scale');
  }
  if (!isPlainObject(scale)) throw E.badRequest('the body is not a Scale object');
  const meta = isPlainObject(scale.metadata) ? scale.metadata : {};
  const rv = meta.resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== existing.metadata.resourceVersion) {
    throw E.conflict({ group: ctx.type.group, resource: ctx.type.plural }, name, E.staleObjectMessage);
  }
  const replicas = isPlainObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw E.invalid('Scale', 'autoscaling', name, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`, field: 'spec.replicas' }]);
  }
  const next = cloneJson(existing);
  writePath(next, s.specReplicasPath, replicas);
  const result = ctx.api.writePatched(ctx.type, ctx.version, existing, next, undefined, { dryRun });
  await reply(ctx, 200, toScale(result, s));
}
