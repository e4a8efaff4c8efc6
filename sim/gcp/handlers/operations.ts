// zoneOperations / regionOperations / globalOperations: get, wait (long-poll until DONE or the wait limit),
// list and delete.
import { notFound } from '../api-error.js';
import { listResponse } from '../listing.js';
import type { GceOperation, OperationScope } from '../model.js';
import { renderOperation, scopePath, waitForOperation } from '../operations.js';
import { param, type Handler, type RequestContext } from './context.js';

type ScopeKind = OperationScope['kind'];

function opScope(ctx: RequestContext, kind: ScopeKind): { project: string; scope: OperationScope } {
  const project = param(ctx, 'project');
  if (kind === 'zone') {
    const zone = param(ctx, 'zone');
    ctx.state.requireZone(project, zone);
    return { project, scope: { kind, name: zone } };
  }
  if (kind === 'region') {
    const region = param(ctx, 'region');
    ctx.state.requireRegion(project, region);
    return { project, scope: { kind, name: region } };
  }
  ctx.state.requireProject(project);
  return { project, scope: { kind } };
}

function requireOp(ctx: RequestContext, kind: ScopeKind): GceOperation {
  const { project, scope } = opScope(ctx, kind);
  const name = param(ctx, 'operation');
  const op = ctx.state.operation(project, scope, name);
  if (!op) throw notFound(`${scopePath(project, scope)}/operations/${name}`);
  return op;
}

export function getOperation(kind: ScopeKind): Handler {
  return (ctx) => renderOperation(requireOp(ctx, kind), ctx.state.clock.now());
}

export function waitOperation(kind: ScopeKind): Handler {
  return async (ctx) => {
    const op = requireOp(ctx, kind);
    await waitForOperation(ctx.state, op, ctx.signal);
    return renderOperation(op, ctx.state.clock.now());
  };
}

export function listOperations(kind: ScopeKind): Handler {
  return (ctx) => {
    const { project, scope } = opScope(ctx, kind);
    const now = ctx.state.clock.now();
    const items = ctx.state.world.operations
      .filter(
        (o) =>
          o.project === project &&
          o.scope.kind === scope.kind &&
          (!('name' in scope) || ('name' in o.scope && o.scope.name === scope.name)),
      )
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((o) => renderOperation(o, now));
    return listResponse('compute#operationList', `${scopePath(project, scope)}/operations`, items, ctx.query);
  };
}

/** operations.delete answers an empty body. */
export function deleteOperation(kind: ScopeKind): Handler {
  return (ctx) => {
    const op = requireOp(ctx, kind);
    ctx.state.world.operations = ctx.state.world.operations.filter((o) => o !== op);
    ctx.state.changed();
    return {};
  };
}
