// A Machine that waits for a missing Secret (credentials, user data) is brought back the moment that Secret
// is created or changed, instead of at the end of its backoff. Which Secrets a Machine names is the
// provider's business (its providerSpec); it answers through Actuator.referencedSecrets, so this stays
// cloud-agnostic. Only real changes count: an informer resync re-delivers every Secret unchanged, and
// turning that into a reconcile of every Machine would cost cloud calls for nothing.
import type { Secret } from '../apis/core.js';
import type { Machine } from '../apis/machine-types.js';
import { namespacedKey, objectKey } from '../apis/objects.js';
import type { Informer, Request } from '../runtime/types.js';

/** Machines by the "namespace/name" of each Secret their providerSpec names. */
export const MachineSecretIndex = 'machine-controller:referenced-secret';

/** The names of the Secrets a Machine's providerSpec refers to, all in the Machine's namespace. */
export type ReferencedSecrets = (machine: Machine) => string[];

export interface SecretWatchOptions {
  machines: Informer<Machine>;
  secrets: Informer<Secret>;
  referencedSecrets: ReferencedSecrets;
  /** Called for each Machine naming a Secret that was created, changed or deleted. */
  onSecretChanged: (machine: Request) => void;
}

/** The index values of a Machine: "namespace/name" per Secret it names; none when the provider cannot tell. */
export function referencedSecretKeys(machine: Machine, referencedSecrets: ReferencedSecrets): string[] {
  let names: string[];
  try {
    names = referencedSecrets(machine);
  } catch {
    // An index function must not throw (it runs inside the informer); a spec that does not decode names
    // nothing, and its Machine fails on its own with the decoding error.
    return [];
  }
  const namespace = machine.metadata.namespace ?? '';
  return [...new Set(names.filter((n) => n !== ''))].map((name) => namespacedKey({ namespace, name }));
}

/** The Machines (as requests) that name this Secret. */
export function machinesReferencing(machines: Informer<Machine>, secret: Secret): Request[] {
  return machines
    .byIndex(MachineSecretIndex, objectKey(secret))
    .flatMap((m) => (m.metadata.name ? [{ namespace: m.metadata.namespace, name: m.metadata.name }] : []));
}

export function watchReferencedSecrets(o: SecretWatchOptions): void {
  o.machines.addIndex(MachineSecretIndex, (m) => referencedSecretKeys(m, o.referencedSecrets));
  const changed = (secret: Secret): void => {
    for (const r of machinesReferencing(o.machines, secret)) o.onSecretChanged(r);
  };
  o.secrets.on('add', changed);
  o.secrets.on('update', (secret, old) => {
    if (old === undefined || old.metadata.resourceVersion !== secret.metadata.resourceVersion) changed(secret);
  });
  o.secrets.on('delete', changed);
}
