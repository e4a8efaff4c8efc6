// Shared builders for machine controller unit tests.
import { Registry } from 'prom-client';
import { MachineClusterIDLabel, MachineFinalizer } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { EventRecorder, EventType } from '../../../lib/client/event-recorder.js';
import { Machines, Nodes } from '../../../lib/client/resources.js';
import type { Actuator } from '../../../lib/machine/actuator.js';
import { MachineReconciler } from '../../../lib/machine/machine-reconciler.js';
import { MachineMetrics } from '../../../lib/machine/metrics.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import type { Logger } from '../../../lib/base/logger.js';
import type { ReconcileContext, Result } from '../../../lib/runtime/types.js';
import { MemoryInformer, MemoryKubeClient } from './memory-kube.js';

export const NS = 'openshift-machine-api';

export interface Recorded {
  object: string;
  type: EventType;
  reason: string;
  action: string;
  message: string;
}

export class ListEvents implements EventRecorder {
  readonly list: Recorded[] = [];
  event(o: KubeObject, type: EventType, reason: string, action: string, message: string): void {
    this.list.push({ object: o.metadata.name ?? '', type, reason, action, message });
  }
  reasons(): string[] {
    return this.list.map((e) => e.reason);
  }
}

export const quietLog: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => quietLog };

/** A logger that keeps every line it is given, with its level, for tests that check what is logged how. */
export function recordingLog(): { log: Logger; lines: Array<{ level: string; msg: string; fields: object }> } {
  const lines: Array<{ level: string; msg: string; fields: object }> = [];
  const at =
    (level: string) =>
    (msg: string, fields: object = {}): void => {
      lines.push({ level, msg, fields });
    };
  const log: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => log };
  return { log, lines };
}

export function rctx(signal = new AbortController().signal): ReconcileContext {
  return { signal, log: quietLog, reconcileID: 'test' };
}

export function machine(name: string, extra: Partial<Machine> = {}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: NS,
      labels: { [MachineClusterIDLabel]: 'cluster-1' },
      finalizers: [MachineFinalizer],
      ...extra.metadata,
    },
    spec: { providerSpec: { value: { instanceType: 'fake.large' } }, ...extra.spec },
    status: extra.status,
  };
}

export function machineEnv(actuator: Actuator, opts: { migration?: boolean; capacityWindowMs?: number } = {}) {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
  const client = new MemoryKubeClient();
  client.now = () => new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const machines = new MemoryInformer(client, Machines);
  const nodes = new MemoryInformer(client, Nodes);
  const events = new ListEvents();
  const registry = new Registry();
  const metrics = new MachineMetrics(registry);
  const reconciler = new MachineReconciler({
    client,
    machines,
    actuator,
    clock,
    events,
    metrics,
    migrationEnabled: opts.migration ?? false,
    requeueAfterMs: 30_000,
    nodeExists: (name) => nodes.get({ name }) !== undefined,
    retryBaseMs: 5,
    retryMaxMs: 1_000_000,
    capacityRetryWindowMs: opts.capacityWindowMs,
  });
  const reconcile = (name: string): Promise<Result | void> => reconciler.reconcile({ namespace: NS, name }, rctx());
  const get = (name: string) => client.peek(Machines, { namespace: NS, name });
  return { clock, client, machines, nodes, events, registry, metrics, reconciler, reconcile, get };
}
