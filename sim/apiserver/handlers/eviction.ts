// POST pods/<name>/eviction (policy/v1 Eviction): deletes the pod unless a PodDisruptionBudget that
// selects it has no disruptions left, in which case the answer is 429 TooManyRequests, as from
// kube-apiserver. The budget is computed from the live pods at the time of the request.
import type { PodDisruptionBudget, Pod } from '../../../lib/apis/core.js';
import { selectorFromLabelSelector } from '../../../lib/apis/label-selector.js';
import { budgetFor, isHealthy, matchingPods, PDBKey } from '../pdb-budget.js';
import * as E from '../errors.js';
import { isPlainObject } from '../json.js';
import type { WriteOpts } from '../object-api.js';
import { operationOptions } from '../webhooks/attributes.js';
import { isDryRun, readObjectBody, reply, withWarnings, type HandlerContext } from './context.js';

export async function handleEviction(ctx: HandlerContext): Promise<void> {
  const name = ctx.name ?? '';
  const body = await readObjectBody(ctx);
  const meta = isPlainObject(body) && isPlainObject(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name)
    throw E.badRequest('name in URL does not match name in Eviction object');
  const pod = ctx.api.get(ctx.type, ctx.namespace, name) as Pod;
  // Webhooks see the Eviction as a CREATE of pods/eviction; the pod's deletion that follows is not reviewed again.
  const opts: WriteOpts = { dryRun: isDryRun(ctx.query), warnings: [] };
  const eviction = {
    ...(isPlainObject(body) ? body : {}),
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { ...meta, name, namespace: ctx.namespace },
  };
  await withWarnings(ctx, opts, () =>
    ctx.writes.review(
      {
        operation: 'CREATE',
        type: ctx.type,
        version: ctx.version,
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
        subresource: 'eviction',
        namespace: ctx.namespace,
        name,
        object: eviction,
        dryRun: opts.dryRun ?? false,
        options: operationOptions('CreateOptions', opts.dryRun ?? false),
      },
      opts.warnings ?? [],
    ),
  );
  const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  const podsType = ctx.type;
  const store = ctx.api.store;
  const phase = pod.status?.phase;
  const terminal = phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending';
  if (!pod.metadata.deletionTimestamp && !terminal) {
    const pdbs = (store.list(PDBKey, ctx.namespace) as PodDisruptionBudget[]).filter((p) =>
      selectorFromLabelSelector(p.spec?.selector).matches(pod.metadata.labels),
    );
    if (pdbs.length > 1) {
      throw new E.StatusError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    }
    const pdb = pdbs[0];
    if (pdb) {
      const b = budgetFor(pdb, matchingPods(store, pdb));
      // An unhealthy pod may go as long as the budget is met without it (IfHealthyBudget).
      const allowed = isHealthy(pod) ? b.currentHealthy - b.desiredHealthy > 0 : b.currentHealthy >= b.desiredHealthy;
      if (!allowed) {
        throw E.tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", [
          {
            reason: 'DisruptionBudget',
            message: `The disruption budget ${b.name} needs ${b.desiredHealthy} healthy pods and has ${b.currentHealthy} currently`,
          },
        ]);
      }
    }
  }
  if (!pod.metadata.deletionTimestamp) ctx.api.delete(podsType, ctx.namespace, name, {});
  await reply(ctx, 201, success);
}
