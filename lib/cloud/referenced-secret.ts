// The one way a provider reads a Secret its providerSpec names (credentials, user data). A Secret that does
// not exist becomes a MissingSecretError naming it, which the machine controller turns into a wait with a
// condition and an event instead of a failure; any other error is returned as it came. Contents are never
// logged or put into an error.
import type { Secret } from '../apis/core.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient, ObjectKey } from '../client/kube-client.js';
import { Secrets } from '../client/resources.js';
import { MissingSecretError } from '../apis/errors.js';

/** Reads `namespace/name`; `purpose` says what it holds ("aws credentials", "user data") in the error. */
export async function readReferencedSecret(
  client: KubeClient,
  key: Required<ObjectKey>,
  purpose: string,
  signal: AbortSignal,
): Promise<Secret> {
  try {
    return await client.get(Secrets, key, { signal });
  } catch (err) {
    if (isNotFound(err)) throw new MissingSecretError(key.namespace, key.name, purpose, { cause: err });
    throw err;
  }
}

/** The Secrets a providerSpec names (credentials, user data): what an actuator's referencedSecrets() answers. */
export function secretNamesOf(spec: {
  credentialsSecret?: { name?: string };
  userDataSecret?: { name?: string };
}): string[] {
  return [spec.credentialsSecret?.name, spec.userDataSecret?.name].filter((n): n is string => !!n);
}
