// The clouds the benchmark and the chaos runs can drive: one per descriptor in the registry
// (cmd/internal/cloud-providers.ts), each the cloud's bench simulation (sim/<cloud>/bench.ts: how to start its
// emulator, the Secrets and worker providerSpec, the create/describe actions, the throttled scenario's buckets)
// with the provider binary the descriptor names.
import { cloudProviders } from '../../cmd/internal/cloud-providers.js';
import { MACHINE_UID_TAG } from '../../providers/aws/index.js';
import { awsBenchSimulation } from '../../sim/aws/bench.js';
import { gcpBenchSimulation } from '../../sim/gcp/bench.js';
import { ibmCloudBenchSimulation } from '../../sim/ibmcloud/bench.js';
import type { BenchSimulation } from '../../sim/kit/bench-cloud.js';
import { SECRET_VALUES } from '../../sim/kit/planted-secrets.js';

export type { BenchCloud, BenchCloudOptions, Bucket, LiveInstance } from '../../sim/kit/bench-cloud.js';

/** Each cloud's bench simulation, keyed by its descriptor's name. */
const simulations = {
  aws: awsBenchSimulation,
  gcp: gcpBenchSimulation,
  ibmcloud: ibmCloudBenchSimulation,
} as const satisfies Record<string, BenchSimulation>;

export type ProviderName = keyof typeof simulations;

export interface BenchProvider extends BenchSimulation {
  name: ProviderName;
  /** The provider binary, as its Deployment container name and script. */
  binary: { name: string; script: string };
}

export function isProviderName(v: string): v is ProviderName {
  return Object.hasOwn(simulations, v);
}

function benchEntry(name: string, component: string): BenchProvider {
  // A descriptor without a bench simulation is a cloud added to the registry but not to the benchmark.
  if (!isProviderName(name)) throw new Error(`cloud provider ${JSON.stringify(name)} has no bench simulation`);
  return { ...simulations[name], name, binary: { name: component, script: `cmd/${component}.ts` } };
}

export const PROVIDER_NAMES: readonly ProviderName[] = cloudProviders.map((d) => benchEntry(d.name, d.component).name);

export const benchProviders = Object.fromEntries(
  cloudProviders.map((d) => [d.name, benchEntry(d.name, d.component)]),
) as Readonly<Record<ProviderName, BenchProvider>>;

/** AWS, the cloud the in-process controllers and the established scenarios default to. */
export const awsBench: BenchProvider = benchProviders.aws;

export function benchProvider(name: string): BenchProvider {
  if (!isProviderName(name))
    throw new RangeError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}, got ${JSON.stringify(name)}`);
  return benchProviders[name];
}

export { MACHINE_UID_TAG, SECRET_VALUES };
