// What every chaos step (a workload action or an injected fault) is given and returns, and the small helpers
// the steps share.
import { Machines, type Machine } from '../../lib/index.js';
import { BENCH_NAMESPACE, type BenchEnvironment } from '../bench/environment.js';
import type { ControllerHost, PauseEpisode } from './controller-host.js';
import type { Prng } from './prng.js';

export type Step = (ctx: StepContext) => Promise<string | undefined>;

export interface StepContext {
  env: BenchEnvironment;
  host: ControllerHost;
  rng: Prng;
  maxReplicas: number;
  failedAllowed: Set<string>;
  notReadyNodes: Set<string>;
  /** Faults that end by themselves later (capacity back, Secret restored, paused leader resumed). */
  healing: Promise<unknown>[];
  /** Launch refusals in force; launches are allowed again when the last one ends. */
  capacityRefusals: number;
  /** Key revocations in force; the key is known again when the last one ends. */
  keyRevocations: number;
  /** Controllers with a paused leader now (one pause per controller at a time). */
  pausedControllers: Set<string>;
  episodes: PauseEpisode[];
  /**
   * Whether the control plane may be SIGKILLed (the real-binaries mode: it runs machine-api-envtest as a
   * child process for the fault, compiled from compiledDir when set).
   */
  controlPlaneKill?: { compiledDir?: string };
  log: (line: string) => void;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const live = (ms: Machine[]) => ms.filter((m) => !m.metadata.deletionTimestamp);

export async function machines(env: BenchEnvironment): Promise<Machine[]> {
  return (await env.client.list(Machines, { namespace: BENCH_NAMESPACE })).items;
}
