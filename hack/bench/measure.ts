// Counting from outside the controllers: EC2 calls (the emulator's counters), Kubernetes requests (the control
// plane's, per client), reconciles and V8 heap (the controllers' own /metrics) and peak RSS (/proc). A Snapshot
// is taken before and after a phase; the difference is what the phase cost.
import { sumMetric, type ControllerProcess } from './controller-process.js';
import { DRIVER_USER_AGENT, KUBELET_USER_AGENT, type BenchEnvironment } from './environment.js';
import { SIMULATION_CPU, SIMULATION_PARTS } from './process-names.js';

export const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface Snapshot {
  at: number;
  ec2: Record<string, { total: number; throttled: number }>;
  /** Controller requests per "agent|verb resource[/sub]" (driver and kubelet simulator excluded). */
  kubeByAgent: Record<string, number>;
  /** controller_runtime_reconcile_total per controller name, summed over the processes. */
  reconciles: Record<string, number>;
  /** The same per "controller|result" (success, requeue, requeue_after, error): what made a reconcile come again. */
  reconcileResults?: Record<string, number>;
  /**
   * CPU seconds used so far per process (its process_cpu_seconds_total): each controller, the control plane
   * (`control-plane`, machine-api-envtest's own /metrics), and the bench process as `emulator+kubelet` (the cloud
   * emulator and the kubelet simulator share it, so they are one figure).
   */
  cpuSeconds: Record<string, number>;
}

export { SIMULATION_CPU, SIMULATION_PARTS };

export async function snapshot(env: BenchEnvironment, controllers: ControllerProcess[]): Promise<Snapshot> {
  const ec2: Snapshot['ec2'] = {};
  for (const [action, c] of Object.entries(env.emulator.knobs.allCounts()))
    ec2[action] = { total: c.total, throttled: c.throttled };
  const kubeByAgent: Record<string, number> = {};
  for (const [key, n] of await env.requestCounts()) {
    const agent = key.split('|')[0];
    if (agent !== DRIVER_USER_AGENT && agent !== KUBELET_USER_AGENT) kubeByAgent[key] = n;
  }
  const reconciles: Record<string, number> = {};
  const reconcileResults: Record<string, number> = {};
  const own = process.cpuUsage();
  const cpuSeconds: Record<string, number> = { [SIMULATION_CPU]: (own.user + own.system) / 1e6 };
  for (const c of controllers) {
    c.sampleRss();
    if (!c.running) continue;
    let text: string;
    try {
      text = await c.metrics();
    } catch {
      continue;
    }
    c.observeMetrics(text);
    cpuSeconds[c.name] = (cpuSeconds[c.name] ?? 0) + sumMetric(text, 'process_cpu_seconds_total');
    const names = new Set(
      [...text.matchAll(/^controller_runtime_reconcile_total\{[^}]*controller="([^"]+)"/gm)].map((m) => m[1] ?? ''),
    );
    for (const name of names)
      reconciles[name] =
        (reconciles[name] ?? 0) + sumMetric(text, 'controller_runtime_reconcile_total', { controller: name });
    for (const m of text.matchAll(/^controller_runtime_reconcile_total\{([^}]*)\}\s+(\S+)/gm)) {
      const labels = new Map([...(m[1] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((kv) => [kv[1], kv[2]]));
      const key = `${labels.get('controller') ?? ''}|${labels.get('result') ?? ''}`;
      reconcileResults[key] = (reconcileResults[key] ?? 0) + Number(m[2]);
    }
  }
  return { at: performance.now(), ec2, kubeByAgent, reconciles, reconcileResults, cpuSeconds };
}

function diffRecord(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const d = (b[k] ?? 0) - (a[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

export interface Cost {
  seconds: number;
  ec2ByAction: Record<string, number>;
  ec2Total: number;
  ec2Throttled: number;
  kubeByVerb: Record<string, number>;
  kubeByRequest: Record<string, number>;
  /** kubeByRequest per client: "agent|verb resource[/sub]". */
  kubeByAgentRequest: Record<string, number>;
  kubeWrites: number;
  reconciles: Record<string, number>;
  /** Reconciles per "controller|result" over the phase. */
  reconcileResults: Record<string, number>;
  /** CPU seconds per process over the phase (see Snapshot.cpuSeconds). */
  cpuSeconds: Record<string, number>;
}

export function cost(before: Snapshot, after: Snapshot): Cost {
  const total = (s: Snapshot) => Object.fromEntries(Object.entries(s.ec2).map(([k, v]) => [k, v.total]));
  const throttled = (s: Snapshot) => Object.fromEntries(Object.entries(s.ec2).map(([k, v]) => [k, v.throttled]));
  const ec2ByAction = diffRecord(total(before), total(after));
  const kubeByAgentRequest = diffRecord(before.kubeByAgent, after.kubeByAgent);
  const kubeByRequest: Record<string, number> = {};
  const kubeByVerb: Record<string, number> = {};
  for (const [key, n] of Object.entries(kubeByAgentRequest)) {
    const what = key.slice(key.indexOf('|') + 1);
    const verb = what.split(' ')[0] ?? what;
    kubeByRequest[what] = (kubeByRequest[what] ?? 0) + n;
    kubeByVerb[verb] = (kubeByVerb[verb] ?? 0) + n;
  }
  return {
    seconds: (after.at - before.at) / 1000,
    ec2ByAction,
    ec2Total: Object.values(ec2ByAction).reduce((a, b) => a + b, 0),
    ec2Throttled: Object.values(diffRecord(throttled(before), throttled(after))).reduce((a, b) => a + b, 0),
    kubeByVerb,
    kubeByRequest,
    kubeByAgentRequest,
    kubeWrites: Object.entries(kubeByVerb).reduce((a, [v, n]) => a + (WRITE_VERBS.has(v) ? n : 0), 0),
    reconciles: diffRecord(before.reconciles, after.reconciles),
    reconcileResults: diffRecord(before.reconcileResults ?? {}, after.reconcileResults ?? {}),
    cpuSeconds: Object.fromEntries(
      Object.entries(diffRecord(before.cpuSeconds, after.cpuSeconds)).map(([k, v]) => [k, round(v, 2)]),
    ),
  };
}

export function perUnit(r: Record<string, number>, n: number): Record<string, number> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v / n)]));
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Per process, in MB, and the bench process's own (its kernel high-water mark, as `emulator+kubelet`). */
export function peakRssMb(controllers: ControllerProcess[]): Record<string, number> {
  return {
    ...Object.fromEntries(controllers.map((c) => [c.name, round(c.sampleRss() / (1024 * 1024), 1)])),
    [SIMULATION_CPU]: round(process.resourceUsage().maxRSS / 1024, 1),
  };
}

/** Starts a scenario's heap window: each process's peak heap used is counted from here. */
export function startHeapWindow(controllers: ControllerProcess[]): void {
  for (const c of controllers) c.resetHeapPeak();
}

/**
 * Per process, in MB: the highest V8 heap used sampled since startHeapWindow (nodejs_heap_size_used_bytes,
 * scraped every second and at each snapshot) and the heap limit (nodejs_heap_size_limit_bytes).
 */
export function heapMb(controllers: ControllerProcess[]): {
  peakHeapUsedMb: Record<string, number>;
  heapLimitMb: Record<string, number>;
} {
  const mb = (b: number) => round(b / (1024 * 1024), 1);
  return {
    peakHeapUsedMb: Object.fromEntries(controllers.map((c) => [c.name, mb(c.peakHeapUsedBytes)])),
    heapLimitMb: Object.fromEntries(controllers.map((c) => [c.name, mb(c.heapLimitBytes)])),
  };
}
