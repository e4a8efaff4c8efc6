// The clouds `machine-api-local` can emulate: one per descriptor in the registry (cmd/internal/cloud-providers.ts),
// each the cloud's simulation (sim/<cloud>/local.ts: how to start its emulator persisting into a directory, the
// flags that point the provider binary at it, its Infrastructure) with its provider binary (provider-binaries.ts).
// The secrets to create come from the Secret documents in manifests/samples/<name>/.
import { awsLocalSimulation } from '../../sim/aws/local.js';
import { gcpLocalSimulation } from '../../sim/gcp/local.js';
import { ibmCloudLocalSimulation } from '../../sim/ibmcloud/local.js';
import type { LocalSimulation } from '../../sim/kit/local-cloud.js';
import { cloudProvider, cloudProviders } from '../internal/index.js';
import type { LocalBinary } from './local-binary.js';
import { providerBinaries } from './provider-binaries.js';

export type { EmulatorSettings, LocalCloud } from '../../sim/kit/local-cloud.js';

export interface LocalProvider extends LocalSimulation {
  /** The descriptor's name, as --provider takes it. */
  name: string;
  /** The provider binary (machine controller, NodeLink, scale-from-zero) for this cloud. */
  binary: LocalBinary;
}

/** Each cloud's simulation, keyed by its descriptor's name. */
const simulations: Readonly<Record<string, LocalSimulation>> = {
  aws: awsLocalSimulation,
  gcp: gcpLocalSimulation,
  ibmcloud: ibmCloudLocalSimulation,
};

function localEntry(name: string): LocalProvider {
  const simulation = Object.hasOwn(simulations, name) ? simulations[name] : undefined;
  const binary = Object.hasOwn(providerBinaries, name) ? providerBinaries[name] : undefined;
  // A descriptor without both halves is a cloud added to the registry but not to npm start: say which half.
  if (!simulation)
    throw new Error(`cloud provider ${JSON.stringify(name)} has no simulation in cmd/local/providers.ts`);
  if (!binary)
    throw new Error(`cloud provider ${JSON.stringify(name)} has no binary in cmd/local/provider-binaries.ts`);
  return { ...simulation, name, binary };
}

export const localProviders: Readonly<Record<string, LocalProvider>> = Object.fromEntries(
  cloudProviders.map((d) => [d.name, localEntry(d.name)]),
);

/** The local provider for --provider `name`; UnknownCloudProviderError listing the known ones otherwise. */
export function localProvider(name: string): LocalProvider {
  return localProviders[cloudProvider(name).name]!;
}
