// Watches, for the whole run, how many Machines the chaos MachineHealthCheck has remediated and are still being
// deleted (they carry its machine.openshift.io/remediated-by mark): those are remediations in flight, so their
// number must never pass its machine.openshift.io/max-in-flight. Sampled, since a violation lasts as long as a
// deletion does (a drain and a termination, seconds), far longer than the sampling interval.
import { Machines, RemediatedByAnnotation } from '../../lib/index.js';
import type { BenchEnvironment } from '../bench/environment.js';
import { BENCH_NAMESPACE } from '../bench/environment.js';
import type { Violation } from './invariants.js';

export interface InFlightSampler {
  /** Stops sampling; the violations seen (at most one, with the worst moment). */
  stop(): Promise<Violation[]>;
  /** The most remediations seen in flight at once. */
  readonly worst: number;
}

export function sampleRemediationsInFlight(
  env: BenchEnvironment,
  o: { seed: number; mhcName: string; maxInFlight: number; intervalMs?: number },
): InFlightSampler {
  let worst = 0;
  let worstNames: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const machines = (await env.client.list(Machines, { namespace: BENCH_NAMESPACE })).items;
        const inFlight = machines.filter(
          (m) => m.metadata.deletionTimestamp && m.metadata.annotations?.[RemediatedByAnnotation] === o.mhcName,
        );
        if (inFlight.length > worst) {
          worst = inFlight.length;
          worstNames = inFlight.map((m) => m.metadata.name ?? '');
        }
      } catch {
        // The control plane may be down for a fault: the next sample looks again.
      }
      await new Promise((r) => setTimeout(r, o.intervalMs ?? 200));
    }
  })();
  return {
    get worst() {
      return worst;
    },
    async stop() {
      stopped = true;
      await loop;
      return worst > o.maxInFlight
        ? [
            {
              seed: o.seed,
              invariant: `remediations in flight never exceed the MachineHealthCheck's max-in-flight (${o.maxInFlight})`,
              detail: `${worst} Machines remediated by ${o.mhcName} were being deleted at once: ${worstNames.join(', ')}`,
            },
          ]
        : [];
    },
  };
}
