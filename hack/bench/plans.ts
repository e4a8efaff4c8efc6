// What a run measures (sizes, steady state, throttled scale-up, the emulator's timings) and the limits its
// targets are held to: the full plan's are the scale envelope's, --quick keeps looser ones for its small sizes.
import { awsBench, type BenchProvider, type Bucket } from './providers.js';

/** The limits of the plan-dependent targets (report.ts). */
export interface TargetLimits {
  /** Peak RSS of the largest controller process at the largest size, MB. */
  rssMb: number;
  /** Throttled scale-up: completion time / floor. */
  throttledRatio: number;
  /** Throttled scale-up: throttled replies / calls. */
  throttledShare: number;
  /** The whole run, start to report, on 2 cores: minutes. */
  runMinutes: number;
}

export interface Plan {
  sizes: number[];
  steadyN: number;
  steadyPeriods: number;
  syncPeriodMs: number;
  throttledN: number;
  /** The stock-out scenario's size; its scale-up of the same size (in `sizes`) is the no-stock-out time. */
  stockOutN: number;
  /** steady-N: N Machines made as adopted before the binaries start (0: not run); steadyPeriods resyncs. */
  adoptedN: number;
  bootDelayMs: number;
  latencyMs: number;
  buckets: Bucket[];
  limits: TargetLimits;
}

export const FULL: Plan = {
  sizes: [1, 100, 500, 1000, 2000],
  steadyN: 2000,
  steadyPeriods: 3,
  syncPeriodMs: 30_000,
  throttledN: 1000,
  stockOutN: 100,
  adoptedN: 5000,
  bootDelayMs: 10_000,
  latencyMs: 20,
  buckets: awsBench.buckets,
  limits: { rssMb: 350, throttledRatio: 1.1, throttledShare: 0.03, runMinutes: 25 },
};

// --quick keeps EC2's refill rates but a tenth of its bucket sizes, so that 60 machines already outrun them.
export const QUICK: Plan = {
  sizes: [1, 50],
  steadyN: 50,
  steadyPeriods: 2,
  syncPeriodMs: 6_000,
  throttledN: 60,
  stockOutN: 50,
  adoptedN: 200,
  bootDelayMs: 10_000,
  latencyMs: 20,
  buckets: awsBench.buckets.map((b) => ({ ...b, burst: b.burst / 10 })),
  limits: { rssMb: 300, throttledRatio: 1.3, throttledShare: 0.05, runMinutes: 3 },
};

/** The plan with the provider's buckets in place of EC2's (same --quick scaling); a copy, free to change. */
export function planFor(quick: boolean, p: BenchProvider): Plan {
  const base = quick ? QUICK : FULL;
  return {
    ...base,
    sizes: [...base.sizes],
    buckets: quick ? p.buckets.map((b) => ({ ...b, burst: b.burst / 10 })) : p.buckets,
  };
}
