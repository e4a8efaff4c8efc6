// Persists what changed on an in-memory Machine since it was read: at most one merge patch for
// metadata/spec (labels, annotations, spec.providerID, and the labels/annotations of spec.metadata that
// NodeLink copies to the Node) and one for the status subresource.
import type { Machine } from '../apis/machine-types.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import { isConflict } from '../client/errors.js';
import { clone, createMergePatch, deepEqual } from './merge-patch.js';

/** A machine being worked on plus the copy it was read as; persist() writes the difference and rebases. */
export class MachineDraft {
  base: Machine;
  /**
   * Told, before each write, what the Machine will look like once it is written (see OwnWrites); unset while the
   * reconcile wants the echo of its writes (see persist's `echo`).
   */
  beforeWrite?: (expected: Machine) => void;

  constructor(
    public machine: Machine,
    private readonly client: KubeClient,
  ) {
    this.base = clone(machine);
  }

  get key(): { namespace: string; name: string } {
    return { namespace: this.machine.metadata.namespace ?? '', name: this.machine.metadata.name ?? '' };
  }

  /**
   * Writes metadata/spec first, without a lock: these keys merge independently and a new instance's
   * providerID must land even if someone else touched the machine. The status patch replaces the
   * conditions list whole, so when it carries conditions it is locked on the resourceVersion the
   * draft was based on: a concurrent condition change (e.g. Drained) is never silently lost.
   * `echo`: the caller returns to let the watch event of this write carry on, so beforeWrite is not told.
   */
  async persist(signal?: AbortSignal, o: { echo?: boolean } = {}): Promise<void> {
    const metaPatch = metadataSpecPatch(this.base, this.machine);
    const statusPatch = createMergePatch(this.base.status ?? {}, this.machine.status ?? {});
    if ((metaPatch || statusPatch) && !o.echo) this.beforeWrite?.(this.machine);
    let latest: Machine | undefined;
    if (metaPatch) {
      latest = await this.client.patch(Machines, this.key, { type: 'merge', body: metaPatch }, { signal });
    }
    if (statusPatch) {
      const touchesConditions = 'conditions' in statusPatch;
      let lockRV: string | undefined;
      if (touchesConditions) {
        // After our own metadata patch the resourceVersion moved; it is still safe to lock on the new one
        // only if the status we based our change on is what the server holds.
        lockRV =
          latest && deepEqual(latest.status?.conditions, this.base.status?.conditions)
            ? latest.metadata.resourceVersion
            : this.base.metadata.resourceVersion;
      }
      try {
        latest = await this.client.patch(
          Machines,
          this.key,
          { type: 'merge', body: { status: statusPatch } },
          { subresource: 'status', resourceVersion: lockRV, signal },
        );
      } catch (err) {
        if (lockRV === undefined || !isConflict(err)) throw err;
        // Only the conditions needed the lock. What else was learnt (above all a new instance's id in
        // providerStatus) must not be lost to someone else's write: it goes unlocked, and the conflict
        // still fails this pass so that the conditions are worked out again on the fresh object.
        const { conditions: _conditions, ...rest } = statusPatch;
        if (Object.keys(rest).length > 0) {
          await this.client.patch(
            Machines,
            this.key,
            { type: 'merge', body: { status: rest } },
            { subresource: 'status', signal },
          );
        }
        throw err;
      }
    }
    if (latest) this.rebase(latest);
  }

  /** After a write the server's copy (which holds everything we sent) is both the working copy and the base. */
  rebase(latest: Machine): void {
    this.machine = clone(latest);
    this.base = clone(latest);
  }
}

function metadataSpecPatch(base: Machine, machine: Machine): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const meta = labelsAndAnnotationsPatch(base.metadata, machine.metadata);
  if (meta) patch.metadata = meta;
  const spec: Record<string, unknown> = {};
  const before = base.spec?.providerID;
  const after = machine.spec?.providerID;
  if ((before ?? '') !== (after ?? '')) spec.providerID = after ? after : null;
  // What an actuator asks of the Node (e.g. the interruptible-instance label of a spot instance, which the
  // termination MachineHealthCheck selects on) is part of the spec: without it NodeLink never copies it.
  const nodeMeta = labelsAndAnnotationsPatch(base.spec?.metadata, machine.spec?.metadata);
  if (nodeMeta) spec.metadata = nodeMeta;
  if (Object.keys(spec).length > 0) patch.spec = spec;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

type LabelsAndAnnotations = { labels?: Record<string, string>; annotations?: Record<string, string> };

/** Only the keys that changed, so labels and annotations someone else set meanwhile stay as they are. */
function labelsAndAnnotationsPatch(
  base: LabelsAndAnnotations | undefined,
  current: LabelsAndAnnotations | undefined,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const labels = createMergePatch({ v: base?.labels ?? {} }, { v: current?.labels ?? {} });
  if (labels) out.labels = labels.v;
  const annotations = createMergePatch({ v: base?.annotations ?? {} }, { v: current?.annotations ?? {} });
  if (annotations) out.annotations = annotations.v;
  return Object.keys(out).length > 0 ? out : undefined;
}
