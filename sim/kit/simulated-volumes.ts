// What the attach/detach controller does for the simulated Nodes: while a Pod runs on a Node, each
// PersistentVolumeClaim it mounts has its volume attached there (a storage.k8s.io/v1 VolumeAttachment naming the
// Node, status.attached true); once no running Pod on that Node uses the volume (the Pod is gone or has finished),
// the VolumeAttachment is deleted, after `detachDelayMs` (detaching takes a while on a cloud). A claim not yet
// bound is bound to a volume named after it, as a dynamic provisioner would. Attachments of another attacher are
// left alone.
import { createHash } from 'node:crypto';
import type { PersistentVolumeClaim, Pod, VolumeAttachment } from '../../lib/apis/core.js';
import { isAlreadyExists, isNotFound } from '../../lib/client/errors.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import { PersistentVolumeClaims, Pods, VolumeAttachments } from '../../lib/client/resources.js';
import type { Clock } from '../../lib/base/clock.js';
import { SerialLock } from '../../lib/base/serial-lock.js';
import { SharedInformer } from '../../lib/runtime/shared-informer.js';

/** The CSI driver name the simulated attachments carry. */
export const SimulatedAttacher = 'csi.simulated.machine-api-ts.openshift.io';

export interface SimulatedVolumesOptions {
  client: KubeClient;
  clock: Clock;
  /** Whether a kubelet of ours runs on this Node: only its Pods' volumes are attached. */
  runsPodsOn(nodeName: string): boolean;
  /** How long a detach takes once the volume is no longer used; default 0. */
  detachDelayMs?: number;
}

/** The VolumeAttachment name kube's CSI attacher uses: csi-<sha256(volume, attacher, node)>. */
export function attachmentName(pv: string, node: string): string {
  return `csi-${createHash('sha256').update(`${pv}${SimulatedAttacher}${node}`).digest('hex')}`;
}

const byNode = 'spec.nodeName';

export class SimulatedVolumes {
  private readonly pods: SharedInformer<Pod>;
  private readonly lock = new SerialLock();
  private readonly pendingDetach = new Map<string, { cancel(): void }>();
  private stop?: AbortController;
  private lastError?: unknown;

  constructor(private readonly opts: SimulatedVolumesOptions) {
    this.pods = new SharedInformer({ client: opts.client, resource: Pods, clock: opts.clock, resyncPeriodMs: 0 });
    this.pods.addIndex(byNode, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    // Only a Pod with a claim can change what is attached: the others cost nothing.
    const look = (p: Pod) => {
      if (p.spec?.nodeName && p.spec.volumes?.some((v) => v.persistentVolumeClaim?.claimName))
        this.kick(p.spec.nodeName);
    };
    this.pods.on('add', look);
    this.pods.on('update', look);
    this.pods.on('delete', look);
  }

  async start(): Promise<void> {
    this.stop = new AbortController();
    void this.pods.start(this.stop.signal).catch((err: unknown) => {
      this.lastError = err;
    });
    await this.pods.waitForSync(this.stop.signal);
  }

  close(): void {
    this.stop?.abort();
    for (const t of this.pendingDetach.values()) t.cancel();
    this.pendingDetach.clear();
  }

  get error(): unknown {
    return this.lastError;
  }

  /** Re-checks a Node's attachments (its Pods changed, or it became Ready). */
  kick(nodeName: string): void {
    void this.lock
      .run(() => this.sync(nodeName))
      .catch((err: unknown) => {
        if (!this.stop?.signal.aborted) this.lastError = err;
      });
  }

  private async sync(node: string): Promise<void> {
    if (this.stop?.signal.aborted) return;
    const wanted = new Set<string>();
    if (this.opts.runsPodsOn(node)) {
      for (const pod of this.pods.byIndex(byNode, node)) {
        const phase = pod.status?.phase;
        if (phase !== 'Running') continue;
        for (const v of pod.spec?.volumes ?? []) {
          const claim = v.persistentVolumeClaim?.claimName;
          if (claim) {
            const pv = await this.volumeOf(pod.metadata.namespace ?? '', claim);
            if (pv) wanted.add(pv);
          }
        }
      }
    }
    const existing = (await this.opts.client.list(VolumeAttachments)).items.filter(
      (va) => va.spec?.nodeName === node && va.spec.attacher === SimulatedAttacher,
    );
    const have = new Set(existing.map((va) => va.spec?.source?.persistentVolumeName ?? ''));
    for (const pv of wanted) {
      const name = attachmentName(pv, node);
      this.pendingDetach.get(name)?.cancel();
      this.pendingDetach.delete(name);
      if (!have.has(pv)) await this.attach(pv, node);
    }
    for (const va of existing) {
      const pv = va.spec?.source?.persistentVolumeName ?? '';
      if (!wanted.has(pv)) this.detachLater(va);
    }
  }

  /** The volume bound to the claim, binding one named after the claim when it has none. */
  private async volumeOf(namespace: string, claim: string): Promise<string | undefined> {
    let pvc: PersistentVolumeClaim;
    try {
      pvc = await this.opts.client.get(PersistentVolumeClaims, { namespace, name: claim });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (pvc.spec?.volumeName) return pvc.spec.volumeName;
    const volumeName = `pvc-${pvc.metadata.uid ?? claim}`;
    await this.opts.client.patch(
      PersistentVolumeClaims,
      { namespace, name: claim },
      { type: 'merge', body: { spec: { volumeName } } },
    );
    await this.opts.client.patch(
      PersistentVolumeClaims,
      { namespace, name: claim },
      { type: 'merge', body: { status: { phase: 'Bound' } } },
      { subresource: 'status' },
    );
    return volumeName;
  }

  private async attach(pv: string, node: string): Promise<void> {
    const name = attachmentName(pv, node);
    let va: VolumeAttachment;
    try {
      va = await this.opts.client.create(VolumeAttachments, {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name },
        spec: { attacher: SimulatedAttacher, nodeName: node, source: { persistentVolumeName: pv } },
      });
    } catch (err) {
      if (isAlreadyExists(err)) return;
      throw err;
    }
    await this.opts.client.patch(
      VolumeAttachments,
      { name: va.metadata.name ?? name },
      { type: 'merge', body: { status: { attached: true } } },
      { subresource: 'status' },
    );
  }

  private detachLater(va: VolumeAttachment): void {
    const name = va.metadata.name ?? '';
    if (this.pendingDetach.has(name)) return;
    const detach = () => {
      this.pendingDetach.delete(name);
      void this.opts.client.delete(VolumeAttachments, { name }).catch((err: unknown) => {
        if (!isNotFound(err)) this.lastError = err;
      });
    };
    const delay = this.opts.detachDelayMs ?? 0;
    if (delay <= 0) {
      this.pendingDetach.set(name, { cancel() {} });
      detach();
      return;
    }
    this.pendingDetach.set(name, this.opts.clock.setTimeout(detach, delay));
  }
}
