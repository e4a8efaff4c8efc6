// Which machines a MachineSet controls: the active ones its selector matches and its controller reference
// names. A matching orphan is adopted (our controller reference added) and a machine we control whose labels
// stop matching is released (our reference removed); both writes carry the resourceVersion they were computed
// from, so a machine changed meanwhile is left for the next pass.
import type { Selector } from '../apis/label-selector.js';
import type { Machine, MachineSet } from '../apis/machine-types.js';
import { getControllerOf } from '../apis/objects.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import type { Logger } from '../base/logger.js';
import type { Informer, ReconcileContext } from '../runtime/types.js';
import { withControllerRef, withoutOwnerRef } from './controller-ref.js';

/** Oldest first, then by name, so that every pass sees the same order. */
function byAgeThenName(a: Machine, b: Machine): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return Date.parse(ta) - Date.parse(tb) || (ta < tb ? -1 : 1);
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

export class MachineClaims {
  constructor(
    private readonly client: KubeClient,
    private readonly machines: Informer<Machine>,
  ) {}

  /** The active machines this MachineSet controls, after adopting matching orphans and releasing mismatches. */
  async claim(ms: MachineSet, selector: Selector, ctx: ReconcileContext): Promise<Machine[]> {
    const uid = ms.metadata.uid;
    const owned: Machine[] = [];
    for (const m of this.machines.list({ namespace: ms.metadata.namespace })) {
      const ref = getControllerOf(m);
      if (ref && ref.uid !== uid) continue;
      if (m.metadata.deletionTimestamp) continue;
      // An empty selector never matches here (validation already refused it).
      const matches = !selector.empty && selector.matches(m.metadata.labels);
      if (ref && !matches) {
        await this.release(ms, m, ctx.log, ctx.signal);
        continue;
      }
      if (!matches) continue;
      if (!ref) {
        const adopted = await this.adopt(ms, m, ctx.log, ctx.signal);
        if (!adopted) continue;
        owned.push(adopted);
        continue;
      }
      owned.push(m);
    }
    return owned.sort(byAgeThenName);
  }

  private async adopt(ms: MachineSet, m: Machine, log: Logger, signal: AbortSignal): Promise<Machine | undefined> {
    try {
      const updated = await this.client.patch(
        Machines,
        { namespace: m.metadata.namespace, name: m.metadata.name ?? '' },
        { type: 'merge', body: { metadata: { ownerReferences: withControllerRef(m, ms) } } },
        { resourceVersion: m.metadata.resourceVersion, signal },
      );
      log.info('adopted machine', { machine: m.metadata.name });
      return updated;
    } catch (err) {
      log.warn('failed to adopt machine', { machine: m.metadata.name, error: (err as Error).message });
      return undefined;
    }
  }

  private async release(ms: MachineSet, m: Machine, log: Logger, signal: AbortSignal): Promise<void> {
    try {
      await this.client.patch(
        Machines,
        { namespace: m.metadata.namespace, name: m.metadata.name ?? '' },
        { type: 'merge', body: { metadata: { ownerReferences: withoutOwnerRef(m, ms.metadata.uid ?? '') } } },
        { resourceVersion: m.metadata.resourceVersion, signal },
      );
      log.info('released machine whose labels no longer match the selector', { machine: m.metadata.name });
    } catch (err) {
      // A conflict or a vanished machine means the cache is behind; its watch event brings us back.
      if (!isConflict(err) && !isNotFound(err)) {
        log.warn('failed to release machine', { machine: m.metadata.name, error: (err as Error).message });
      }
    }
  }
}
