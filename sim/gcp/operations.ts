// Zone, region and global operations: their JSON, PENDING → RUNNING → DONE derived from the clock, the
// long-poll `wait`, and requestId de-duplication of the calls that create them.
import { invalidField } from './api-error.js';
import type { GceState } from './gce-state.js';
import { projectPath, regionPath, selfLink, zonePath } from './links.js';
import type { GceOperation, OperationScope } from './model.js';
import { gceTimestamp } from './timestamps.js';

export type OperationStatus = 'PENDING' | 'RUNNING' | 'DONE';

export function operationStatus(op: GceOperation, now: number): OperationStatus {
  if (now >= op.doneAt) return 'DONE';
  return now >= op.startAt ? 'RUNNING' : 'PENDING';
}

export function scopePath(project: string, scope: OperationScope): string {
  if (scope.kind === 'zone') return zonePath(project, scope.name);
  if (scope.kind === 'region') return regionPath(project, scope.name);
  return `${projectPath(project)}/global`;
}

/**
 * The Operation JSON. `fresh` renders the reply to the call that created it: GCE answers those with a queued
 * operation, even when the work will be done by the next read.
 */
export function renderOperation(op: GceOperation, now: number, fresh = false): Record<string, unknown> {
  const status: OperationStatus = fresh ? 'PENDING' : operationStatus(op, now);
  const out: Record<string, unknown> = {
    kind: 'compute#operation',
    id: op.id,
    name: op.name,
    operationType: op.operationType,
    targetLink: op.targetLink,
    status,
    user: op.user,
    progress: status === 'DONE' ? 100 : 0,
    insertTime: gceTimestamp(op.insertTime),
    selfLink: selfLink(`${scopePath(op.project, op.scope)}/operations/${op.name}`),
  };
  if (op.targetId) out.targetId = op.targetId;
  if (op.scope.kind === 'zone') out.zone = selfLink(zonePath(op.project, op.scope.name));
  if (op.scope.kind === 'region') out.region = selfLink(regionPath(op.project, op.scope.name));
  if (op.description) out.description = op.description;
  if (op.statusMessage) out.statusMessage = op.statusMessage;
  if (status !== 'PENDING') out.startTime = gceTimestamp(op.startAt);
  if (status === 'DONE') {
    out.endTime = gceTimestamp(op.doneAt);
    if (op.error) {
      out.error = { errors: [{ code: op.error.code, message: op.error.message }] };
      out.httpErrorStatusCode = op.error.httpStatus;
      out.httpErrorMessage = op.error.httpMessage;
    }
  }
  return out;
}

/**
 * Holds until the operation is DONE or `maxWaitMs` has passed (GCE answers the wait with the operation as it is
 * then, DONE or not), or the request is aborted.
 */
export async function waitForOperation(state: GceState, op: GceOperation, signal: AbortSignal): Promise<void> {
  const deadline = state.clock.now() + state.timings.operationWaitMs;
  for (;;) {
    const now = state.clock.now();
    if (operationStatus(op, now) === 'DONE' || now >= deadline || signal.aborted) return;
    try {
      await state.clock.sleep(Math.max(1, Math.min(op.doneAt, deadline) - now), signal);
    } catch {
      return;
    }
    state.advance();
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Runs a mutating call at most once per requestId: a repeat (e.g. a retry after a lost reply) gets the
 * original operation back and changes nothing, as GCE does for at least an hour.
 */
export function withRequestId(
  state: GceState,
  project: string,
  requestId: string | null,
  call: string,
  run: () => GceOperation,
): GceOperation {
  if (requestId === null || requestId === '') return run();
  if (!UUID_RE.test(requestId) || /^[0-]+$/.test(requestId)) {
    throw invalidField(
      'requestId',
      requestId,
      'The request id must be a valid UUID with the exception that zero UUID is not supported.',
    );
  }
  const seen = findByRequestId(state, project, requestId);
  if (seen) return seen;
  const op = run();
  state.world.requestIds[`${project}/${requestId.toLowerCase()}`] = {
    operationName: op.name,
    call,
    at: state.clock.now(),
  };
  return op;
}

/** The operation a requestId already produced in the project, if it is still remembered. */
export function findByRequestId(state: GceState, project: string, requestId: string | null): GceOperation | undefined {
  if (requestId === null || requestId === '') return undefined;
  const seen = state.world.requestIds[`${project}/${requestId.toLowerCase()}`];
  if (!seen) return undefined;
  return state.world.operations.find((o) => o.project === project && o.name === seen.operationName);
}
