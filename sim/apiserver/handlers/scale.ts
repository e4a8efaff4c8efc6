// The scale subresource of custom resources that declare one: an autoscaling/v1 Scale read from and
// written to the CRD's specReplicasPath / statusReplicasPath / labelSelectorPath.
import * as E from '../errors.js';
import { managerFromRequest } from '../field-management/index.js';
import { cloneJson, isPlainObject } from '../json.js';
import type { Obj, WriteOpts } from '../object-api.js';
import type { AdmissionView } from '../webhooks/admitted-writes.js';
import { versionInfo, type ScaleSubresource } from '../resource-type.js';
import { readObjectBody, isDryRun, reply, withWarnings, type HandlerContext } from './context.js';
import {
  applyPatchOfType,
  JsonPatchType,
  MergePatchType,
  readPatch,
  StrategicMergePatchType,
} from './patch-handler.js';

function pathParts(jsonPath: string): string[] {
  return jsonPath
    .replace(/^\./, '')
    .split('.')
    .filter((p) => p !== '');
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
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status: {
      replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
      ...(typeof selector === 'string' ? { selector } : {}),
    },
  };
}

export async function handleGetScale(ctx: HandlerContext): Promise<void> {
  const s = scaleSpec(ctx);
  await reply(ctx, 200, toScale(ctx.api.get(ctx.type, ctx.namespace, ctx.name ?? ''), s));
}

function replicasOf(scale: unknown, name: string): number {
  if (!isPlainObject(scale)) throw E.badRequest('the body is not a Scale object');
  const replicas = isPlainObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw E.invalid('Scale', 'autoscaling', name, [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
        field: 'spec.replicas',
      },
    ]);
  }
  return replicas;
}

function withReplicas(obj: Obj, s: ScaleSubresource, replicas: number): Obj {
  const next = cloneJson(obj);
  writePath(next, s.specReplicasPath, replicas);
  return next;
}

/**
 * PUT or PATCH of the scale: checks the Scale's resourceVersion and replicas, then writes the main resource.
 * Admission webhooks see the autoscaling/v1 Scale (subresource "scale"), as kube-apiserver sends it.
 */
export async function handleWriteScale(ctx: HandlerContext, method: 'PUT' | 'PATCH'): Promise<void> {
  const s = scaleSpec(ctx);
  const opts: WriteOpts = {
    dryRun: isDryRun(ctx.query),
    warnings: [],
    fieldManager: {
      manager: managerFromRequest(
        ctx.query.get('fieldManager'),
        ctx.req.headers['user-agent'],
        method === 'PUT' ? 'UpdateOptions' : 'PatchOptions',
      ),
      operation: 'Update',
      subresource: 'scale',
    },
  };
  const name = ctx.name ?? '';
  const body =
    method === 'PUT'
      ? { scale: await readObjectBody(ctx) }
      : await readPatch(ctx, [JsonPatchType, MergePatchType, StrategicMergePatchType]);
  const read = () => {
    const existing = ctx.api.get(ctx.type, ctx.namespace, name);
    const scale =
      'scale' in body
        ? body.scale
        : applyPatchOfType(
            body.contentType === StrategicMergePatchType ? MergePatchType : body.contentType,
            toScale(existing, s),
            body.patch,
            'Scale',
          );
    if (!isPlainObject(scale)) throw E.badRequest('the body is not a Scale object');
    const meta = isPlainObject(scale.metadata) ? scale.metadata : {};
    const rv = meta.resourceVersion;
    if (typeof rv === 'string' && rv !== '' && rv !== existing.metadata.resourceVersion) {
      throw E.conflict({ group: ctx.type.group, resource: ctx.type.plural }, name, E.staleObjectMessage);
    }
    return { existing, incoming: withReplicas(existing, s, replicasOf(scale, name)) };
  };
  const view: AdmissionView = {
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    toView: (obj) => toScale(obj, s),
    fromView: (scale, base) => withReplicas(base, s, replicasOf(scale, name)),
  };
  const result = await withWarnings(ctx, opts, () =>
    ctx.writes.update({
      type: ctx.type,
      version: ctx.version,
      namespace: ctx.namespace,
      name,
      subresource: 'scale',
      opts,
      read,
      view,
    }),
  );
  await reply(ctx, 200, toScale(result, s));
}
