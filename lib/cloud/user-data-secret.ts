// The user data of a Machine's instance, read from the Secret its providerSpec names (in the Machine's
// namespace, key "userData", as on every cloud). Providers differ only in how they hand the bytes to the cloud
// (raw bytes, a UTF-8 string) and in whether a Secret without the key is a fault of the spec: that is an
// option here, not a copy of this function. Each cloud's cap on its size is checked here, before any cloud call
// (user-data-limit.ts). The contents are never logged or put into an error.
import type { Machine } from '../apis/machine-types.js';
import type { KubeClient } from '../client/kube-client.js';
import { InvalidMachineConfigurationError, MissingSecretKeyError } from '../apis/errors.js';
import { readReferencedSecret } from './referenced-secret.js';
import { secretBytes } from './secret-value.js';
import { checkUserDataSize, type SizeLimit } from './user-data-limit.js';

/** The key of the user-data Secret that holds the user data. */
export const USER_DATA_SECRET_KEY = 'userData';

export interface UserDataOptions {
  /**
   * The providerSpec field naming the Secret. When set, a Secret without the key is an invalid spec at that
   * field (terminal); when not, it is a MissingSecretKeyError, retried with backoff until the Secret is fixed.
   */
  invalidSpecField?: string;
  /**
   * The cloud's cap on the user data, counted in the Secret's bytes: more is an InvalidMachineConfigurationError
   * naming the Secret and the cap. A provider whose cloud counts something else (a value after rewriting, a total
   * with other fields) checks that itself with checkUserDataSize or checkUserDataTotal.
   */
  limit?: SizeLimit;
}

/**
 * The user data in Secret `secretName` of the Machine's namespace; undefined when the spec names no Secret.
 * A Secret that does not exist is a MissingSecretError (the Machine waits for it).
 */
export async function readUserData(
  client: KubeClient,
  machine: Machine,
  secretName: string | undefined,
  signal: AbortSignal,
  opts: UserDataOptions = {},
): Promise<Buffer | undefined> {
  if (!secretName) return undefined;
  const namespace = machine.metadata.namespace ?? '';
  const secret = await readReferencedSecret(client, { namespace, name: secretName }, 'user data', signal);
  const bytes = secretBytes(secret, USER_DATA_SECRET_KEY);
  if (bytes !== undefined) {
    if (opts.limit)
      checkUserDataSize({ namespace, name: secretName, key: USER_DATA_SECRET_KEY }, bytes.length, opts.limit);
    return bytes;
  }
  const missing = new MissingSecretKeyError(namespace, secretName, USER_DATA_SECRET_KEY);
  if (opts.invalidSpecField === undefined) throw missing;
  throw new InvalidMachineConfigurationError(
    `secret ${namespace}/${secretName} does not have "${USER_DATA_SECRET_KEY}" field set`,
    {
      field: opts.invalidSpecField,
      cause: missing,
    },
  );
}
