// instances.*: insert (requestId de-duplicated, async quota/stockout failures in the operation), get, list,
// aggregatedList, delete, start, stop and the set* calls, each answering with a zone operation.
import { conditionNotMet, invalidResourceUsage, resourceNotReady } from '../api-error.js';
import { instanceKey, VIEW_GET, VIEW_LIST, type GceState } from '../gce-state.js';
import { buildInstance } from '../instance-builder.js';
import { instancePath, selfLink, zonePath } from '../links.js';
import { aggregatedResponse, listResponse } from '../listing.js';
import type { GceInstance, GceOperation } from '../model.js';
import { findByRequestId, renderOperation, withRequestId } from '../operations.js';
import { checkLabels, checkMetadataItems, checkTags, fingerprint } from '../validation.js';
import { bodyObject, param, queryBool, type Handler, type RequestContext } from './context.js';
import { requestZone } from './scoped-collection.js';

type Json = Record<string, unknown>;

/** Runs a mutating call under its requestId and answers with the operation (queued when just created). */
function mutate(ctx: RequestContext, project: string, call: string, run: () => GceOperation): Json {
  const { state } = ctx;
  let created = false;
  const op = withRequestId(state, project, ctx.query.get('requestId'), call, () => {
    created = true;
    return run();
  });
  state.changed();
  return renderOperation(op, state.clock.now(), created);
}

/** The original operation when this requestId was already used in the project. */
function replayed(ctx: RequestContext, project: string): Json | undefined {
  const op = findByRequestId(ctx.state, project, ctx.query.get('requestId'));
  return op ? renderOperation(op, ctx.state.clock.now()) : undefined;
}

function zoneOp(state: GceState, inst: GceInstance, operationType: string, doneAt: number): GceOperation {
  return state.createOperation({
    project: inst.project,
    scope: { kind: 'zone', name: inst.zone },
    operationType,
    targetLink: selfLink(instancePath(inst.project, inst.zone, inst.name)),
    targetId: String(inst.resource.id),
    doneAt,
  });
}

export const insertInstance: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  const body = bodyObject(ctx);
  const { state } = ctx;
  return mutate(ctx, project, 'instances.insert', () => {
    const built = buildInstance(state, project, zone, body);
    const inst: GceInstance = { project, zone, name: built.name, resource: built.resource, transitions: [], seq: 0 };
    const targetLink = selfLink(instancePath(project, zone, built.name));
    const failure = state.capacity.insertFailure(state, inst, built.machineType.name);
    if (failure) {
      return state.createOperation({
        project,
        scope: { kind: 'zone', name: zone },
        operationType: 'insert',
        targetLink,
        error: failure,
      });
    }
    inst.seq = state.nextSeq();
    state.world.disks.push(...built.disks);
    const runningAt = state.addInstance(inst);
    state.assignNatIps(inst);
    return zoneOp(state, inst, 'insert', runningAt);
  });
};

export const getInstance: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  return structuredClone(ctx.state.requireInstance(project, zone, param(ctx, 'instance'), VIEW_GET).resource);
};

function visibleInstances(state: GceState, project: string, zone?: string): GceInstance[] {
  return state.world.instances
    .filter((i) => i.project === project && (zone === undefined || i.zone === zone))
    .filter((i) => state.knobs.isVisible(instanceKey(i.project, i.zone, i.name), VIEW_LIST))
    .sort((a, b) => a.zone.localeCompare(b.zone) || a.name.localeCompare(b.name));
}

export const listInstances: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  const items = visibleInstances(ctx.state, project, zone).map((i) => structuredClone(i.resource));
  return listResponse('compute#instanceList', `${zonePath(project, zone)}/instances`, items, ctx.query);
};

export const aggregatedListInstances: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  const entries = visibleInstances(ctx.state, project).map((i) => ({
    scope: `zones/${i.zone}`,
    item: structuredClone(i.resource),
  }));
  const scopes = ctx.state.world.zones.map((z) => `zones/${z.name}`).sort();
  return aggregatedResponse(
    'compute#instanceAggregatedList',
    project,
    'instances',
    'instances',
    entries,
    scopes,
    ctx.query,
  );
};

function target(ctx: RequestContext, nameParam = 'instance'): GceInstance {
  const { project, zone } = requestZone(ctx);
  return ctx.state.requireInstance(project, zone, param(ctx, nameParam), VIEW_GET);
}

function notDeleting(inst: GceInstance): void {
  if (inst.deleting) throw resourceNotReady(instancePath(inst.project, inst.zone, inst.name));
}

export const deleteInstance: Handler = (ctx) => {
  const { state } = ctx;
  const project = param(ctx, 'project');
  // A repeated delete (same requestId) answers with the first operation even after the instance is gone.
  const again = replayed(ctx, project);
  if (again) return again;
  const inst = target(ctx);
  if (inst.resource.deletionProtection === true) {
    throw invalidResourceUsage("Resource cannot be deleted if it's protected against deletion");
  }
  return mutate(ctx, inst.project, 'instances.delete', () => zoneOp(state, inst, 'delete', state.deleteInstance(inst)));
};

export const startInstance: Handler = (ctx) => {
  const inst = target(ctx);
  notDeleting(inst);
  return mutate(ctx, inst.project, 'instances.start', () =>
    zoneOp(ctx.state, inst, 'start', ctx.state.startInstance(inst)),
  );
};

export const stopInstance: Handler = (ctx) => {
  const inst = target(ctx);
  notDeleting(inst);
  return mutate(ctx, inst.project, 'instances.stop', () =>
    zoneOp(ctx.state, inst, 'stop', ctx.state.stopInstance(inst)),
  );
};

function checkFingerprint(given: unknown, current: unknown, what: string): void {
  if (given === undefined || given === null || given === '') return;
  if (given !== current) {
    throw conditionNotMet(
      `Supplied fingerprint does not match current ${what} fingerprint. Resource: ${String(current)}.`,
    );
  }
}

/** A set* call that replaces one fingerprinted part of an instance (labels, metadata, network tags) as a whole. */
interface FingerprintedPart {
  /** The body field carrying the fingerprint the caller last read. */
  fingerprintField: string;
  /** How GCE names the part in its mismatch message. */
  what: string;
  current: (inst: GceInstance) => unknown;
  /** Checks the body's new value and writes it with its new fingerprint. */
  replace: (inst: GceInstance, body: Json) => void;
}

function setFingerprinted(operationType: string, part: FingerprintedPart): Handler {
  return (ctx) => {
    const inst = target(ctx);
    notDeleting(inst);
    const body = bodyObject(ctx);
    return mutate(ctx, inst.project, `instances.${operationType}`, () => {
      checkFingerprint(body[part.fingerprintField], part.current(inst), part.what);
      part.replace(inst, body);
      return zoneOp(ctx.state, inst, operationType, ctx.state.clock.now());
    });
  };
}

export const setInstanceLabels = setFingerprinted('setLabels', {
  fingerprintField: 'labelFingerprint',
  what: 'label',
  current: (inst) => inst.resource.labelFingerprint,
  replace: (inst, body) => {
    const labels = checkLabels('labels', body.labels);
    inst.resource.labels = labels;
    inst.resource.labelFingerprint = fingerprint(labels);
  },
});

/**
 * Metadata and network tags: `{items, fingerprint}` objects whose fingerprint sits inside them; `build` lays
 * out the new object as GCE returns it.
 */
function itemsPart<T>(
  field: 'metadata' | 'tags',
  check: (path: string, items: unknown) => T[],
  build: (items: T[], fingerprint: string) => Json,
): FingerprintedPart {
  return {
    fingerprintField: 'fingerprint',
    what: field,
    current: (inst) => (inst.resource[field] as Json | undefined)?.fingerprint,
    replace: (inst, body) => {
      const items = check(`${field}.items`, body.items);
      inst.resource[field] = build(items, fingerprint(items));
    },
  };
}

export const setInstanceMetadata = setFingerprinted(
  'setMetadata',
  itemsPart('metadata', checkMetadataItems, (items, fp) => ({
    kind: 'compute#metadata',
    fingerprint: fp,
    ...(items.length > 0 ? { items } : {}),
  })),
);

export const setInstanceTags = setFingerprinted(
  'setTags',
  itemsPart('tags', checkTags, (items, fp) => ({ ...(items.length > 0 ? { items } : {}), fingerprint: fp })),
);

export const setInstanceDeletionProtection: Handler = (ctx) => {
  const inst = target(ctx, 'resource');
  notDeleting(inst);
  const protect = queryBool(ctx, 'deletionProtection', true);
  return mutate(ctx, inst.project, 'instances.setDeletionProtection', () => {
    inst.resource.deletionProtection = protect;
    return zoneOp(ctx.state, inst, 'setDeletionProtection', ctx.state.clock.now());
  });
};
