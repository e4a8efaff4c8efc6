// What the kubelets of simulated Nodes do with the Pods bound to them: run them. A bound Pod moves to Running
// with every container started and Ready=True, so drains, PodDisruptionBudgets and evictions see healthy pods
// as on a cluster; a Pod whose spec.activeDeadlineSeconds passes is failed with DeadlineExceeded, as the kubelet
// does. Pods on Nodes these kubelets do not run (or whose Node is not Ready) are left alone.
import type { Pod } from '../../lib/apis/core.js';
import { objectKey } from '../../lib/apis/objects.js';
import { isNotFound } from '../../lib/client/errors.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import { Pods } from '../../lib/client/resources.js';
import type { Clock, TimerHandle } from '../../lib/base/clock.js';
import { SharedInformer } from '../../lib/runtime/shared-informer.js';

export interface SimulatedPodsOptions {
  client: KubeClient;
  clock: Clock;
  /** Whether a kubelet of ours runs on this Node and is Ready: only then are its Pods started. */
  runsPodsOn(nodeName: string): boolean;
  /** The Node's InternalIP, reported as the Pod's hostIP. */
  hostIPOf(nodeName: string): string | undefined;
}

const byNode = 'spec.nodeName';

export class SimulatedPods {
  private readonly informer: SharedInformer<Pod>;
  private readonly deadlines = new Map<string, TimerHandle>();
  private readonly inFlight = new Set<string>();
  private podIPs = 0;
  private stop?: AbortController;
  private lastError?: unknown;

  constructor(private readonly opts: SimulatedPodsOptions) {
    this.informer = new SharedInformer({ client: opts.client, resource: Pods, clock: opts.clock, resyncPeriodMs: 0 });
    this.informer.addIndex(byNode, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    const look = (p: Pod) => void this.reconcile(p);
    this.informer.on('add', look);
    this.informer.on('update', look);
    this.informer.on('delete', (p) => this.forget(p));
  }

  /** Starts watching Pods; resolves once the first list is in. */
  async start(): Promise<void> {
    this.stop = new AbortController();
    void this.informer.start(this.stop.signal).catch((err: unknown) => {
      this.lastError = err;
    });
    await this.informer.waitForSync(this.stop.signal);
  }

  close(): void {
    this.stop?.abort();
    for (const t of this.deadlines.values()) t.cancel();
    this.deadlines.clear();
  }

  /** The last error writing a Pod's status hit (the next change to the Pod retries). */
  get error(): unknown {
    return this.lastError;
  }

  /** A Node became Ready under one of our kubelets: start what was bound to it meanwhile. */
  nodeReady(nodeName: string): void {
    for (const p of this.informer.byIndex(byNode, nodeName)) void this.reconcile(p);
  }

  private key(p: Pod): string {
    return objectKey(p);
  }

  private forget(p: Pod): void {
    const k = this.key(p);
    this.deadlines.get(k)?.cancel();
    this.deadlines.delete(k);
  }

  private async reconcile(pod: Pod): Promise<void> {
    const node = pod.spec?.nodeName;
    if (!node || pod.metadata.deletionTimestamp || !this.opts.runsPodsOn(node)) return;
    const k = this.key(pod);
    if (this.inFlight.has(k)) return;
    this.inFlight.add(k);
    try {
      const phase = pod.status?.phase;
      if (phase === undefined || phase === 'Pending') await this.run(pod, node);
      else if (phase === 'Running') this.watchDeadline(pod);
    } catch (err) {
      if (!isNotFound(err)) this.lastError = err;
    } finally {
      this.inFlight.delete(k);
    }
  }

  private now(): string {
    return new Date(this.opts.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private nextPodIP(): string {
    const n = ++this.podIPs;
    return `10.128.${(n >> 8) & 255}.${n & 255}`;
  }

  private async run(pod: Pod, node: string): Promise<void> {
    const now = this.now();
    const containers = pod.spec?.containers ?? [];
    const ready = ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
      type,
      status: 'True',
      lastTransitionTime: now,
    }));
    const hostIP = this.opts.hostIPOf(node);
    const podIP = this.nextPodIP();
    const status = {
      phase: 'Running',
      conditions: ready,
      hostIP,
      ...(hostIP ? { hostIPs: [{ ip: hostIP }] } : {}),
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: now,
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: c.image ?? '',
        containerID: `cri-o://${(pod.metadata.uid ?? '').replaceAll('-', '')}${c.name}`.slice(0, 72),
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now } },
      })),
    };
    const written = await this.opts.client.patch(
      Pods,
      { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' },
      { type: 'merge', body: { status } },
      { subresource: 'status' },
    );
    this.watchDeadline(written);
  }

  /** spec.activeDeadlineSeconds counts from startTime; once it passes the kubelet fails the Pod. */
  private watchDeadline(pod: Pod): void {
    const seconds = pod.spec?.activeDeadlineSeconds;
    const startTime = pod.status?.startTime;
    const start = typeof startTime === 'string' ? Date.parse(startTime) : Number.NaN;
    const k = this.key(pod);
    if (
      typeof seconds !== 'number' ||
      !Number.isFinite(seconds) ||
      seconds <= 0 ||
      Number.isNaN(start) ||
      this.deadlines.has(k)
    )
      return;
    const due = Math.max(0, start + seconds * 1000 - this.opts.clock.now());
    this.deadlines.set(
      k,
      this.opts.clock.setTimeout(() => {
        this.deadlines.delete(k);
        void this.fail(pod).catch((err: unknown) => {
          if (!isNotFound(err)) this.lastError = err;
        });
      }, due),
    );
  }

  private async fail(pod: Pod): Promise<void> {
    const now = this.now();
    const conditions = [
      ...['Initialized', 'PodScheduled'].map((type) => ({ type, status: 'True' })),
      ...['Ready', 'ContainersReady'].map((type) => ({
        type,
        status: 'False',
        reason: 'PodFailed',
        lastTransitionTime: now,
      })),
    ];
    await this.opts.client.patch(
      Pods,
      { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' },
      {
        type: 'merge',
        body: {
          status: {
            phase: 'Failed',
            reason: 'DeadlineExceeded',
            message: 'Pod was active on the node longer than the specified deadline',
            conditions,
          },
        },
      },
      { subresource: 'status' },
    );
  }
}
